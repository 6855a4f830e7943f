import { assign, fromPromise, setup } from "xstate";
import type { Rehydrated } from "./runtime/durable-actors";
import { type AttemptOutcome, backoffMs, type RetryPolicy } from "./webhook-delivery";

/** What the notification says, fixed when the rule fired or resolved (times as epoch ms): every attempt sends the same. */
export interface NotificationFacts {
  status: "firing" | "resolved";
  ruleId: string;
  ruleName: string;
  severity: string;
  condition: string;
  scope: string;
  scopeId: string | null;
  figures: Record<string, number>;
  since: number;
  at: number;
  logsUrl: string;
}

export interface AlertNotificationInput extends RetryPolicy {
  channelId: string;
  facts: NotificationFacts;
  createdAt: number;
}

export interface NotificationAttemptInput {
  channelId: string;
  facts: NotificationFacts;
  /** 1 for the first attempt. */
  attempt: number;
  /** What follows a failure of this attempt: the delay before the next one, or none when this was the last allowed. */
  retryInMs: number | null;
}

/** `permanent`: the channel refused the message itself (a 4xx other than 408/429); sending it again would not help. */
export interface NotificationAttemptResult {
  outcome: AttemptOutcome;
  detail: string;
  finishedAt: number;
}

export interface AlertNotificationContext extends AlertNotificationInput {
  attempts: number;
  lastError?: string;
  nextAttemptAt?: number;
  /** The last time the machine was told (by an output or an event); the retry timer counts from it. */
  observedAt: number;
}

const unprovided = fromPromise<NotificationAttemptResult, NotificationAttemptInput>(async () => {
  throw new Error("alert-notification actor 'attempt' was not provided");
});

const retryInMs = (context: AlertNotificationContext) => (context.attempts < context.maxRetries ? backoffMs(context, context.attempts + 1) : null);

/**
 * One alert notification on one channel: sending -> sent | waiting_retry -> sending ... ->
 * exhausted, or refused. `attempt` (given with `.provide()`) sends it once and records the
 * outcome in the rule's history; the wait between attempts doubles as a webhook delivery's does,
 * and is persisted, so a restart neither forgets the notification nor sends it early.
 */
export const alertNotificationMachine = setup({
  types: {
    input: {} as AlertNotificationInput,
    context: {} as AlertNotificationContext,
    events: {} as Rehydrated,
  },
  actors: { attempt: unprovided },
  guards: {
    wasDelivered: (_, result: NotificationAttemptResult) => result.outcome === "delivered",
    wasRefused: (_, result: NotificationAttemptResult) => result.outcome === "permanent",
    hasRetriesLeft: ({ context }) => context.attempts < context.maxRetries,
  },
  delays: {
    retryBackoff: ({ context }) => Math.max(0, (context.nextAttemptAt ?? context.observedAt) - context.observedAt),
  },
  actions: {
    observe: assign({ observedAt: (_, params: { at: number }) => params.at }),
    recordAttempt: assign(({ context }, result: NotificationAttemptResult) => ({
      attempts: context.attempts + 1,
      lastError: result.outcome === "delivered" ? undefined : result.detail,
      observedAt: result.finishedAt,
      nextAttemptAt: undefined,
    })),
    scheduleRetry: assign({ nextAttemptAt: ({ context }) => context.observedAt + backoffMs(context, context.attempts) }),
    recordCrash: assign({ lastError: (_, params: { error: unknown }) => String(params.error) }),
  },
}).createMachine({
  id: "alert-notification",
  context: ({ input }) => ({ ...input, attempts: 0, observedAt: input.createdAt }),
  initial: "sending",
  on: {
    rehydrated: { actions: { type: "observe", params: ({ event }) => ({ at: event.at }) } },
  },
  states: {
    sending: {
      invoke: {
        src: "attempt",
        input: ({ context }) => ({ channelId: context.channelId, facts: context.facts, attempt: context.attempts + 1, retryInMs: retryInMs(context) }),
        onDone: [
          { guard: { type: "wasDelivered", params: ({ event }) => event.output }, target: "sent", actions: { type: "recordAttempt", params: ({ event }) => event.output } },
          { guard: { type: "wasRefused", params: ({ event }) => event.output }, target: "refused", actions: { type: "recordAttempt", params: ({ event }) => event.output } },
          { guard: "hasRetriesLeft", target: "waiting_retry", actions: [{ type: "recordAttempt", params: ({ event }) => event.output }, "scheduleRetry"] },
          { target: "exhausted", actions: { type: "recordAttempt", params: ({ event }) => event.output } },
        ],
        onError: { target: "refused", actions: { type: "recordCrash", params: ({ event }) => ({ error: event.error }) } },
      },
    },
    waiting_retry: {
      after: { retryBackoff: "sending" },
      on: { rehydrated: { target: "waiting_retry", reenter: true, actions: { type: "observe", params: ({ event }) => ({ at: event.at }) } } },
    },
    sent: { type: "final" },
    refused: { type: "final" },
    exhausted: { type: "final" },
  },
});
