import { assign, fromPromise, setup } from "xstate";
import type { Rehydrated } from "./runtime/durable-actors";

export interface ResumableStreamInput {
  id: string;
  /** Hash of the virtual key that started it; reading or cancelling with another is a 404. */
  owner?: string;
  /** The request whose reply it keeps (its log row). */
  requestId: string;
  createdAt: number;
  retentionSeconds: number;
}

export interface ResumableStreamContext extends ResumableStreamInput {
  /** Once it ended, `retentionSeconds` after that; its events are deleted then. */
  expiresAt: number;
  endedAt?: number;
  /** Why it failed: the upstream's error, the holding node gone, the size bound passed. */
  error?: string;
  /** The last time the machine was told the time; the retention timer counts from it. */
  observedAt: number;
}

/** How the upstream call ended: when, and why it failed where it did. */
export interface StreamEnd {
  at: number;
  error?: string;
}

/** Stops the upstream call of a stream still open. */
export interface CancelStream {
  type: "cancel";
  at: number;
}

/** Thrown by the relay when the stream ended in failure (its error kept as the stream's). */
export class StreamFailed extends Error {
  constructor(readonly end: Required<StreamEnd>) {
    super(end.error);
  }
}

const unprovided = fromPromise<StreamEnd, { streamId: string }>(async () => {
  throw new Error("stream actor 'relay' was not provided");
});

const observeRehydration = { type: "observe" as const, params: ({ event }: { event: Rehydrated }) => ({ at: event.at }) };

/**
 * upstream_open -> completed | failed | cancelled -> expired. The `relay` (given with
 * `.provide()`) reads the upstream to its end and stores its events; leaving `upstream_open`
 * (a cancel) stops it, which cancels the upstream call. An upstream call cannot move between
 * processes: restored in `upstream_open` (its node died or stopped), the relay finds no call to
 * read and fails, and what was stored stays readable until the retention ends.
 */
export const resumableStreamMachine = setup({
  types: {
    input: {} as ResumableStreamInput,
    context: {} as ResumableStreamContext,
    events: {} as Rehydrated | CancelStream,
  },
  actors: { relay: unprovided },
  delays: {
    retention: ({ context }) => Math.max(0, context.expiresAt - context.observedAt),
  },
  actions: {
    observe: assign({ observedAt: (_, params: { at: number }) => params.at }),
    end: assign((_, params: StreamEnd & { retentionSeconds: number }) => ({
      endedAt: params.at,
      expiresAt: params.at + params.retentionSeconds * 1000,
      observedAt: params.at,
      error: params.error,
    })),
  },
}).createMachine({
  id: "stream",
  context: ({ input }) => ({ ...input, expiresAt: input.createdAt + input.retentionSeconds * 1000, observedAt: input.createdAt }),
  initial: "upstream_open",
  on: {
    rehydrated: { actions: { type: "observe", params: ({ event }) => ({ at: event.at }) } },
  },
  states: {
    upstream_open: {
      on: {
        cancel: { target: "cancelled", actions: { type: "end", params: ({ context, event }) => ({ at: event.at, error: "cancelled", retentionSeconds: context.retentionSeconds }) } },
      },
      invoke: {
        src: "relay",
        input: ({ context }) => ({ streamId: context.id }),
        onDone: { target: "completed", actions: { type: "end", params: ({ context, event }) => ({ ...event.output, retentionSeconds: context.retentionSeconds }) } },
        onError: {
          target: "failed",
          actions: {
            type: "end",
            params: ({ context, event }) => {
              const end = event.error instanceof StreamFailed ? event.error.end : { at: context.observedAt, error: String((event.error as Error)?.message ?? event.error) };
              return { ...end, retentionSeconds: context.retentionSeconds };
            },
          },
        },
      },
    },
    completed: retained("completed"),
    failed: retained("failed"),
    cancelled: retained("cancelled"),
    expired: { type: "final" },
  },
});

/** An ended stream, kept readable until its retention ends. */
function retained(self: "completed" | "failed" | "cancelled") {
  return {
    after: { retention: "#stream.expired" },
    on: { rehydrated: { target: self, reenter: true, actions: observeRehydration } },
  };
}
