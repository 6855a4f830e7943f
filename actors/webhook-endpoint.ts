import { assign, setup } from "xstate";
import type { Rehydrated } from "./runtime/durable-actors";

export interface EndpointHealthPolicy {
  /** Consecutive failed attempts that make an active endpoint failing. */
  failingAfterFailedAttempts: number;
  /** How long an endpoint may fail before it is disabled automatically... */
  disableAfterFailingMs: number;
  /** ...provided at least this many messages failed for good meanwhile. */
  disableAfterFailedMessages: number;
}

export interface WebhookEndpointInput {
  endpointId: string;
  createdAt: number;
  policy: EndpointHealthPolicy;
}

export interface WebhookEndpointContext extends WebhookEndpointInput {
  stateSince: number;
  failingSince?: number;
  /** Messages whose delivery failed for good (exhausted or failed) since the endpoint went failing. */
  failedMessages: number;
  disabledReason?: string;
  /** The last time the machine was told (by an event); the disable timer counts from it. */
  observedAt: number;
}

/** Each outcome carries the endpoint's policy as it is now: a changed tunable applies from the next one. */
type Told = { at: number; policy: EndpointHealthPolicy };

export type WebhookEndpointEvent =
  /** An attempt failed; `consecutiveFailures` counts it. */
  | ({ type: "attempt.failed"; consecutiveFailures: number } & Told)
  | ({ type: "attempt.succeeded" } & Told)
  /** A message's delivery failed for good. */
  | ({ type: "delivery.failed" } & Told)
  /** `disabled: true` through the API, and `false`. */
  | { type: "disable"; at: number }
  | { type: "enable"; at: number }
  | Rehydrated;

const atOf = (event: WebhookEndpointEvent) => ("at" in event ? event.at : 0);

/**
 * active -> failing (N consecutive failed attempts, or a message failed for good) -> active
 * on the first success; failing for the configured period with at least K failed messages ->
 * disabled_automatically, which takes no new deliveries until enabled; disabled (manual) from
 * any state, and back. `announceDisabled`/`announceEnabled` tell the subscribers and the audit
 * log, given with `.provide()`. The period is checked by a timer and on every failed message,
 * and counts from `failingSince` (persisted), so a restart never moves the moment of disabling.
 */
export const webhookEndpointMachine = setup({
  types: {
    input: {} as WebhookEndpointInput,
    context: {} as WebhookEndpointContext,
    events: {} as WebhookEndpointEvent,
  },
  guards: {
    streakReached: ({ event }) => event.type === "attempt.failed" && event.consecutiveFailures >= event.policy.failingAfterFailedAttempts,
    /** At the end of the failing period (the timer), enough messages failed. */
    enoughFailedMessages: ({ context }) => context.failedMessages >= context.policy.disableAfterFailedMessages,
    /** This failed message is one past the period and enough. */
    failedLongEnough: ({ context, event }) =>
      context.failingSince !== undefined && atOf(event) - context.failingSince >= context.policy.disableAfterFailingMs && context.failedMessages + 1 >= context.policy.disableAfterFailedMessages,
  },
  delays: {
    failingPeriodLeft: ({ context }) => Math.max(0, (context.failingSince ?? context.observedAt) + context.policy.disableAfterFailingMs - context.observedAt),
  },
  actions: {
    observe: assign({ observedAt: ({ context, event }) => ("at" in event ? event.at : context.observedAt) }),
    // After `observe`: the moment the machine was told, or the period's end for the timer.
    enterState: assign({ stateSince: ({ context }) => context.observedAt }),
    keepPolicy: assign({ policy: ({ context, event }) => ("policy" in event ? event.policy : context.policy) }),
    startFailing: assign(({ event }) => ({ failingSince: atOf(event), failedMessages: event.type === "delivery.failed" ? 1 : 0 })),
    countFailedMessage: assign({ failedMessages: ({ context }) => context.failedMessages + 1 }),
    /** The timer fired: it is the period's end, whatever the clock said when it was armed. */
    observePeriodEnd: assign({ observedAt: ({ context }) => (context.failingSince ?? context.observedAt) + context.policy.disableAfterFailingMs }),
    recover: assign({ failingSince: undefined, failedMessages: 0, disabledReason: undefined }),
    explainAutomaticDisable: assign({
      disabledReason: ({ context }) => {
        const hours = Math.round(context.policy.disableAfterFailingMs / 36_000) / 100;
        return `failing for ${hours} h with ${context.failedMessages} failed message${context.failedMessages === 1 ? "" : "s"} (disabled after ${hours} h and ${context.policy.disableAfterFailedMessages})`;
      },
    }),
    explainManualDisable: assign({ disabledReason: "disabled through the API" }),
    announceDisabled: () => {},
    announceEnabled: () => {},
  },
}).createMachine({
  id: "webhook-endpoint",
  context: ({ input }) => ({ ...input, stateSince: input.createdAt, failedMessages: 0, observedAt: input.createdAt }),
  initial: "active",
  on: {
    disable: { target: ".disabled", actions: ["observe", "enterState", "recover", "explainManualDisable"] },
  },
  states: {
    active: {
      on: {
        "attempt.failed": { guard: "streakReached", target: "failing", actions: ["keepPolicy", "observe", "enterState", "startFailing"] },
        "delivery.failed": { target: "failing", actions: ["keepPolicy", "observe", "enterState", "startFailing"] },
        enable: {},
      },
    },
    failing: {
      after: {
        failingPeriodLeft: { guard: "enoughFailedMessages", target: "disabled_automatically", actions: ["observePeriodEnd", "enterState", "explainAutomaticDisable", "announceDisabled"] },
      },
      on: {
        "attempt.succeeded": { target: "active", actions: ["keepPolicy", "observe", "enterState", "recover"] },
        "delivery.failed": [
          { guard: "failedLongEnough", target: "disabled_automatically", actions: ["keepPolicy", "observe", "enterState", "countFailedMessage", "explainAutomaticDisable", "announceDisabled"] },
          { actions: ["keepPolicy", "countFailedMessage"] },
        ],
        rehydrated: { target: "failing", reenter: true, actions: "observe" },
        enable: {},
      },
    },
    disabled_automatically: {
      on: {
        enable: { target: "active", actions: ["observe", "enterState", "recover", "announceEnabled"] },
      },
    },
    disabled: {
      on: {
        enable: { target: "active", actions: ["observe", "enterState", "recover"] },
        disable: {},
      },
    },
  },
});
