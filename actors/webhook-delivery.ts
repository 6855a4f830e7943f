import { assign, fromPromise, setup } from "xstate";
import type { Rehydrated } from "./runtime/durable-actors";

export interface RetryPolicy {
  maxRetries: number;
  backoffInitialMs: number;
  backoffMaxMs: number;
}

export interface WebhookDeliveryInput extends RetryPolicy {
  deliveryId: string;
  endpointId: string;
  createdAt: number;
}

/** `permanent`: a 4xx other than 408/429, or a receiver the address guard refuses. */
export type AttemptOutcome = "delivered" | "retryable" | "permanent";

/** 408 and 429 say "later"; any other 4xx says the receiver will never take this message. Alert notifications judge their HTTP channels the same way. */
export function outcomeOfStatus(status: number): AttemptOutcome {
  if (status >= 200 && status < 300) return "delivered";
  if (status >= 400 && status < 500 && status !== 408 && status !== 429) return "permanent";
  return "retryable";
}

export interface AttemptResult {
  outcome: AttemptOutcome;
  statusCode?: number;
  error?: string;
  finishedAt: number;
}

export interface WebhookDeliveryContext extends WebhookDeliveryInput {
  attempts: number;
  lastStatusCode?: number;
  lastError?: string;
  nextAttemptAt?: number;
  /** The last time the machine was told (by an output or an event); timers count from it. */
  observedAt: number;
}

export interface AttemptInput {
  deliveryId: string;
  endpointId: string;
  attempt: number;
}

const unprovided = (name: string) =>
  fromPromise<never, unknown>(async () => {
    throw new Error(`webhook-delivery actor '${name}' was not provided`);
  });

/** Delay before retry `retry` (1-based): the initial delay, doubled each time, capped. Log sinks back off the same way. */
export function backoffMs(policy: Pick<RetryPolicy, "backoffInitialMs" | "backoffMaxMs">, retry: number): number {
  return Math.min(policy.backoffInitialMs * 2 ** (retry - 1), policy.backoffMaxMs);
}

/**
 * queued -> attempting -> delivered | waiting_retry -> queued ... -> exhausted, or failed.
 * `queued` waits for one of the endpoint's concurrency slots; `attempting` is one HTTP
 * attempt. No I/O here: both are actors given with `.provide()`.
 */
export const webhookDeliveryMachine = setup({
  types: {
    input: {} as WebhookDeliveryInput,
    context: {} as WebhookDeliveryContext,
    events: {} as Rehydrated,
  },
  actors: {
    acquireSlot: unprovided("acquireSlot") as unknown as ReturnType<typeof fromPromise<void, AttemptInput>>,
    attempt: unprovided("attempt") as unknown as ReturnType<typeof fromPromise<AttemptResult, AttemptInput>>,
  },
  guards: {
    wasDelivered: (_, result: AttemptResult) => result.outcome === "delivered",
    failedPermanently: (_, result: AttemptResult) => result.outcome === "permanent",
    /** Checked before the attempt is counted: `attempts` made so far, the first not being a retry. */
    hasRetriesLeft: ({ context }) => context.attempts < context.maxRetries,
  },
  delays: {
    retryBackoff: ({ context }) => Math.max(0, (context.nextAttemptAt ?? context.observedAt) - context.observedAt),
  },
  actions: {
    observe: assign({ observedAt: (_, params: { at: number }) => params.at }),
    recordAttempt: assign(({ context }, result: AttemptResult) => ({
      attempts: context.attempts + 1,
      lastStatusCode: result.statusCode,
      lastError: result.error,
      observedAt: result.finishedAt,
      nextAttemptAt: undefined,
    })),
    scheduleRetry: assign({ nextAttemptAt: ({ context }) => context.observedAt + backoffMs(context, context.attempts) }),
    recordCrash: assign({ lastError: (_, params: { error: unknown }) => String(params.error) }),
  },
}).createMachine({
  id: "webhook-delivery",
  context: ({ input }) => ({ ...input, attempts: 0, observedAt: input.createdAt }),
  initial: "queued",
  on: {
    rehydrated: { actions: { type: "observe", params: ({ event }) => ({ at: event.at }) } },
  },
  states: {
    queued: {
      invoke: {
        src: "acquireSlot",
        input: ({ context }) => ({ deliveryId: context.deliveryId, endpointId: context.endpointId, attempt: context.attempts + 1 }),
        onDone: "attempting",
        onError: { target: "failed", actions: { type: "recordCrash", params: ({ event }) => ({ error: event.error }) } },
      },
    },
    attempting: {
      invoke: {
        src: "attempt",
        input: ({ context }) => ({ deliveryId: context.deliveryId, endpointId: context.endpointId, attempt: context.attempts + 1 }),
        onDone: [
          { guard: { type: "wasDelivered", params: ({ event }) => event.output }, target: "delivered", actions: { type: "recordAttempt", params: ({ event }) => event.output } },
          { guard: { type: "failedPermanently", params: ({ event }) => event.output }, target: "failed", actions: { type: "recordAttempt", params: ({ event }) => event.output } },
          { guard: "hasRetriesLeft", target: "waiting_retry", actions: [{ type: "recordAttempt", params: ({ event }) => event.output }, "scheduleRetry"] },
          { target: "exhausted", actions: { type: "recordAttempt", params: ({ event }) => event.output } },
        ],
        onError: { target: "failed", actions: { type: "recordCrash", params: ({ event }) => ({ error: event.error }) } },
      },
    },
    waiting_retry: {
      after: { retryBackoff: "queued" },
      on: { rehydrated: { target: "waiting_retry", reenter: true, actions: { type: "observe", params: ({ event }) => ({ at: event.at }) } } },
    },
    delivered: { type: "final" },
    failed: { type: "final" },
    exhausted: { type: "final" },
  },
});
