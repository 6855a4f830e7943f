import { assign, fromPromise, setup } from "xstate";
import type { Rehydrated } from "./runtime/durable-actors";

/**
 * A per-user header submission (spec 4.13): opened when a caller without stored values uses a
 * per_user_headers MCP client; consumed once submitted values pass verification against the
 * upstream, or expired when its time is up. No I/O here: `verifyValues` is provided by the
 * server (and by tests). The values themselves never enter the machine, so no snapshot holds
 * them; the verifier looks them up by flow id.
 *
 *   pending --SUBMIT--> verifying --verified--> consumed
 *      ^                    |
 *      +----- refused ------+
 *   pending --timer, EXPIRE, or a SUBMIT past expiresAt--> expired
 */
export interface PerUserHeaderFlowInput {
  flowId: string;
  mode: "virtual_key" | "session";
  identity: string;
  mcpClientId: string;
  /** Epoch milliseconds. */
  createdAt: number;
  expiresAt: number;
}

export interface PerUserHeaderFlowContext extends PerUserHeaderFlowInput {
  /** The last time the machine was told (its start, or a rehydration); the timer counts from it. */
  observedAt: number;
  /** Why the last submission was refused. */
  lastError?: string;
}

export type PerUserHeaderFlowEvent =
  /** `at`: epoch milliseconds of the submission, so the machine needs no clock of its own. */
  { type: "SUBMIT"; at: number } | { type: "EXPIRE" } | Rehydrated;

export interface VerifyInput {
  flowId: string;
  mcpClientId: string;
}

export type PerUserHeaderFlowState = "pending" | "verifying" | "consumed" | "expired";

export const perUserHeaderFlowMachine = setup({
  types: {
    input: {} as PerUserHeaderFlowInput,
    context: {} as PerUserHeaderFlowContext,
    events: {} as PerUserHeaderFlowEvent,
  },
  actors: {
    verifyValues: fromPromise<void, VerifyInput>(async () => {
      throw new Error("per-user-header-flow actor 'verifyValues' was not provided");
    }),
  },
  guards: {
    submittedTooLate: ({ context, event }) => event.type === "SUBMIT" && event.at >= context.expiresAt,
    dueAt: ({ context }, params: { at: number }) => params.at >= context.expiresAt,
  },
  delays: {
    untilExpiry: ({ context }) => Math.max(0, context.expiresAt - context.observedAt),
  },
  actions: {
    observe: assign({ observedAt: (_, params: { at: number }) => params.at }),
  },
}).createMachine({
  id: "per-user-header-flow",
  context: ({ input }) => ({ ...input, observedAt: input.createdAt }),
  initial: "pending",
  states: {
    pending: {
      after: { untilExpiry: "expired" },
      on: {
        SUBMIT: [
          { guard: "submittedTooLate", target: "expired" },
          // Observed, so a refusal that returns to pending re-arms the timer for what is left.
          { target: "verifying", actions: { type: "observe", params: ({ event }) => ({ at: event.at }) } },
        ],
        EXPIRE: "expired",
        rehydrated: [
          { guard: { type: "dueAt", params: ({ event }) => ({ at: event.at }) }, target: "expired" },
          { target: "pending", reenter: true, actions: { type: "observe", params: ({ event }) => ({ at: event.at }) } },
        ],
      },
    },
    verifying: {
      invoke: {
        src: "verifyValues",
        input: ({ context }) => ({ flowId: context.flowId, mcpClientId: context.mcpClientId }),
        onDone: "consumed",
        onError: {
          target: "pending",
          actions: assign({ lastError: ({ event }) => (event.error instanceof Error ? event.error.message : String(event.error)) }),
        },
      },
    },
    consumed: { type: "final" },
    expired: { type: "final" },
  },
});
