import { assign, fromPromise, setup } from "xstate";
import type { Rehydrated } from "./runtime/durable-actors";
import { backoffMs, type RetryPolicy } from "./webhook-delivery";

export interface LogSinkInput {
  sink: string;
  createdAt: number;
}

/** Why a run of deliveries stopped: the error as text, when, and the sink's backoff as configured now. */
export interface SinkFailure {
  error: string;
  at: number;
  backoff: Pick<RetryPolicy, "backoffInitialMs" | "backoffMaxMs">;
}

export interface LogSinkContext extends LogSinkInput {
  /** Failed attempts since the sink last accepted a batch. */
  failures: number;
  lastError?: string;
  nextAttemptAt?: number;
  /** The last time the machine was told (a failure, a restore); the backoff timer counts from it. */
  observedAt: number;
}

export interface DeliverInput {
  sink: string;
  /** After failures, the run ends at the first batch accepted, so the machine hears of the recovery; otherwise it runs until stopped. */
  endAfterFirstBatch: boolean;
}

const unprovided = fromPromise<void, DeliverInput>(async () => {
  throw new Error("log-sink actor 'deliver' was not provided");
});

/**
 * delivering <-> backing_off. `delivering` runs `deliver`: batches of stored log rows read after
 * the sink's cursor, sent, the cursor advanced, then a wait for more; it writes nothing to the
 * actor per batch (the cursor table keeps the figures). A failed attempt ends the run and backs
 * off (the webhook sender's doubling delay, capped); the first batch accepted after failures
 * ends its run with success, which clears them. No I/O here: `deliver` is given with `.provide()`.
 */
export const logSinkMachine = setup({
  types: {
    input: {} as LogSinkInput,
    context: {} as LogSinkContext,
    events: {} as Rehydrated,
  },
  actors: { deliver: unprovided },
  delays: {
    retryBackoff: ({ context }) => Math.max(0, (context.nextAttemptAt ?? context.observedAt) - context.observedAt),
  },
  actions: {
    observe: assign({ observedAt: (_, params: { at: number }) => params.at }),
    recordFailure: assign(({ context }, failure: SinkFailure) => ({
      failures: context.failures + 1,
      lastError: failure.error,
      observedAt: failure.at,
      nextAttemptAt: failure.at + backoffMs(failure.backoff, context.failures + 1),
    })),
    recover: assign({ failures: 0, lastError: undefined, nextAttemptAt: undefined }),
  },
}).createMachine({
  id: "log-sink",
  context: ({ input }) => ({ ...input, failures: 0, observedAt: input.createdAt }),
  initial: "delivering",
  on: {
    rehydrated: { actions: { type: "observe", params: ({ event }) => ({ at: event.at }) } },
  },
  states: {
    delivering: {
      invoke: {
        src: "deliver",
        input: ({ context }) => ({ sink: context.sink, endAfterFirstBatch: context.failures > 0 }),
        onDone: { target: "delivering", reenter: true, actions: "recover" },
        onError: { target: "backing_off", actions: { type: "recordFailure", params: ({ event }) => event.error as SinkFailure } },
      },
    },
    backing_off: {
      after: { retryBackoff: "delivering" },
      on: { rehydrated: { target: "backing_off", reenter: true, actions: { type: "observe", params: ({ event }) => ({ at: event.at }) } } },
    },
  },
});

export type LogSinkState = "delivering" | "backing_off";
