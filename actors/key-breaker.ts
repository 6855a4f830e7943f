import { assign, setup } from "xstate";
import type { Rehydrated } from "./runtime/durable-actors";

/** How a breaker trips and recovers: the provider's `network_config.health`, over the defaults, sent with each outcome so a changed setting applies to the next one. */
export interface BreakerPolicy {
  /** Failures in a row, each within `windowMs` of the first, that open the breaker. */
  failureThreshold: number;
  windowMs: number;
  /** The first cooldown; each failed trial doubles it, up to `maxCooldownMs`. */
  cooldownMs: number;
  maxCooldownMs: number;
}

export interface KeyBreakerInput {
  provider: string;
  /** The key's id; absent for a keyless provider, whose breaker is the provider's. */
  keyId?: string;
  /** Set for a breaker of one model on the key: failures that only that model met (404, a malformed reply). */
  model?: string;
}

export interface KeyBreakerContext extends KeyBreakerInput {
  /** When each failure of the current streak happened (epoch ms). */
  failures: number[];
  /** Times in a row the breaker opened without a trial closing it: the next cooldown grows with it. */
  opened: number;
  /** When an open breaker lets trials through again (epoch ms). */
  reopensAt?: number;
  /** Opened by a 429: a rate limit the provider set, which even a provider in panic keeps to. */
  rateLimited?: boolean;
  /** The last time the machine was told (by an event); the cooldown timer counts from it. */
  observedAt: number;
}

/** An attempt on the key that counts against it: 429, 5xx, a timeout, a connection error. */
export interface FailureSeen {
  type: "failure";
  at: number;
  policy: BreakerPolicy;
  /** The provider's `retry-after`: the cooldown, when it gave one. */
  retryAfterMs?: number;
  /** A 429. */
  rateLimited?: boolean;
}

export interface SuccessSeen {
  type: "success";
  at: number;
}

export type KeyBreakerEvent = FailureSeen | SuccessSeen | Rehydrated;

/** The cooldown after `opened` openings in a row: the provider's `retry-after` when it gave one, else the first cooldown doubled per failed trial; capped either way. */
function cooldownMs(event: FailureSeen, opened: number): number {
  const { cooldownMs, maxCooldownMs } = event.policy;
  return Math.min(event.retryAfterMs ?? cooldownMs * 2 ** opened, Math.max(maxCooldownMs, cooldownMs));
}

/**
 * closed -> open once `failureThreshold` failures in a row fall within the window -> half_open
 * after the cooldown, where a trial's success closes it and its failure opens it again for
 * longer. Which requests are let through (and how many trials) is decided by whoever reads the
 * state; nothing here does I/O.
 */
export const keyBreakerMachine = setup({
  types: {
    input: {} as KeyBreakerInput & { at: number },
    context: {} as KeyBreakerContext,
    events: {} as KeyBreakerEvent,
  },
  guards: {
    reachesThreshold: ({ context }, event: FailureSeen) => streakWith(context, event).length >= event.policy.failureThreshold,
  },
  delays: {
    cooldown: ({ context }) => Math.max(0, (context.reopensAt ?? context.observedAt) - context.observedAt),
  },
  actions: {
    observe: assign({ observedAt: (_, params: { at: number }) => params.at }),
    countFailure: assign({ failures: ({ context }, event: FailureSeen) => streakWith(context, event), observedAt: (_, event: FailureSeen) => event.at }),
    open: assign(({ context }, event: FailureSeen) => ({
      failures: [],
      opened: context.opened + 1,
      reopensAt: event.at + cooldownMs(event, context.opened),
      rateLimited: event.rateLimited === true,
      observedAt: event.at,
    })),
    close: assign({ failures: [], opened: 0, reopensAt: undefined, rateLimited: undefined, observedAt: (_, params: { at: number }) => params.at }),
  },
}).createMachine({
  id: "key-breaker",
  context: ({ input }) => ({ provider: input.provider, keyId: input.keyId, model: input.model, failures: [], opened: 0, observedAt: input.at }),
  initial: "closed",
  on: {
    rehydrated: { actions: { type: "observe", params: ({ event }) => ({ at: event.at }) } },
  },
  states: {
    closed: {
      on: {
        failure: [
          { guard: { type: "reachesThreshold", params: ({ event }) => event }, target: "open", actions: { type: "open", params: ({ event }) => event } },
          { actions: { type: "countFailure", params: ({ event }) => event } },
        ],
        success: { guard: ({ context }) => context.failures.length > 0, actions: { type: "close", params: ({ event }) => ({ at: event.at }) } },
      },
    },
    open: {
      after: { cooldown: "half_open" },
      on: {
        rehydrated: { target: "open", reenter: true, actions: { type: "observe", params: ({ event }) => ({ at: event.at }) } },
        // A request that started before the breaker opened may still answer: it changes nothing.
      },
    },
    half_open: {
      on: {
        success: { target: "closed", actions: { type: "close", params: ({ event }) => ({ at: event.at }) } },
        failure: { target: "open", actions: { type: "open", params: ({ event }) => event } },
      },
    },
  },
});

/** The streak with this failure added: failures older than the window before it no longer count. */
function streakWith(context: KeyBreakerContext, event: FailureSeen): number[] {
  return [...context.failures.filter((at) => event.at - at < event.policy.windowMs), event.at];
}

export type KeyBreakerState = "closed" | "open" | "half_open";
