import { assign, fromPromise, raise, setup } from "xstate";
import type { Rehydrated } from "./runtime/durable-actors";

/** A rule's timings, sent again whenever the rule changes: each applies from its next evaluation. */
export interface AlertTimings {
  intervalMs: number;
  /** How long the condition must hold before the rule fires; 0 fires at the first evaluation that holds. */
  forMs: number;
  /** After resolving, how long the rule stays resolved before it may fire again. */
  cooldownMs: number;
}

export interface AlertRuleInput extends AlertTimings {
  ruleId: string;
  createdAt: number;
}

/** One evaluation: whether the condition held (null: it could not be evaluated, the state stays), and the figures it read. */
export interface AlertEvaluation {
  holds: boolean | null;
  figures: Record<string, number>;
  at: number;
}

export interface AlertRuleContext extends AlertRuleInput {
  stateSince: number;
  /** When the condition started holding, while pending. */
  pendingSince?: number;
  /** When the rule last fired: what a notification says it is "since". */
  firingSince?: number;
  lastEvaluatedAt?: number;
  figures: Record<string, number>;
  /** Notifications are not sent before this time (epoch ms); the state still moves. */
  silencedUntil?: number;
  acknowledgedBy?: string;
  acknowledgedAt?: number;
  /** The last time the machine was told (by an event); the evaluation timer counts from it. */
  observedAt: number;
}

export type AlertRuleEvent =
  | ({ type: "evaluated" } & AlertEvaluation)
  /** Evaluate now, not at the next interval. */
  | { type: "evaluate"; at: number }
  | ({ type: "configure"; at: number } & AlertTimings)
  | { type: "silence"; until: number; at: number }
  | { type: "unsilence"; at: number }
  | { type: "acknowledge"; by: string; at: number }
  | Rehydrated;

const unprovided = fromPromise<AlertEvaluation, { ruleId: string }>(async () => {
  throw new Error("alert-rule actor 'evaluate' was not provided");
});

const evaluatedAt = ({ event }: { event: AlertRuleEvent }) => ("at" in event ? event.at : 0);
const holds = ({ event }: { event: AlertRuleEvent }) => event.type === "evaluated" && event.holds === true;

/**
 * Two regions. `condition`: ok -> pending (the condition holds) -> firing (it held for `forMs`)
 * -> resolved (it stopped holding) -> pending again once `cooldownMs` passed; a firing rule
 * may be acknowledged by a user. `evaluation`: waits `intervalMs`, then runs `evaluate` (given
 * with `.provide()`: the figures and the CEL condition) and raises `evaluated`. Entering firing
 * and leaving it run `notifyFiring` and `notifyResolved`, also given with `.provide()`, which
 * send nothing while `silencedUntil` lies ahead. The timer counts from the last evaluation, so
 * a restart neither skips nor repeats one; a restored rule re-arms it and notifies nothing.
 */
export const alertRuleMachine = setup({
  types: {
    input: {} as AlertRuleInput,
    context: {} as AlertRuleContext,
    events: {} as AlertRuleEvent,
  },
  actors: { evaluate: unprovided },
  guards: {
    holds,
    firesAtOnce: ({ context, event }) => holds({ event }) && context.forMs === 0,
    heldLongEnough: ({ context, event }) => holds({ event }) && evaluatedAt({ event }) - (context.pendingSince ?? evaluatedAt({ event })) >= context.forMs,
    stoppedHolding: ({ event }) => event.type === "evaluated" && event.holds === false,
    cooledDown: ({ context, event }) => evaluatedAt({ event }) - context.stateSince >= context.cooldownMs,
  },
  delays: {
    nextEvaluation: ({ context }) => Math.max(0, (context.lastEvaluatedAt ?? context.createdAt) + context.intervalMs - context.observedAt),
  },
  actions: {
    observe: assign({ observedAt: ({ context, event }) => ("at" in event ? event.at : context.observedAt) }),
    keepFigures: assign(({ event, context }) =>
      event.type !== "evaluated" ? context : { figures: event.holds === null ? context.figures : event.figures, lastEvaluatedAt: event.at, observedAt: event.at },
    ),
    /** An evaluation that threw: the next one waits a whole interval all the same. */
    skipEvaluation: assign({ lastEvaluatedAt: ({ context }) => context.observedAt }),
    enterState: assign({ stateSince: ({ context, event }) => ("at" in event ? event.at : context.observedAt) }),
    startPending: assign({ pendingSince: ({ event }) => evaluatedAt({ event }) }),
    startFiring: assign({ firingSince: ({ event }) => evaluatedAt({ event }), pendingSince: undefined }),
    clearFiring: assign({ pendingSince: undefined, acknowledgedBy: undefined, acknowledgedAt: undefined }),
    configure: assign(({ event, context }) => (event.type === "configure" ? { intervalMs: event.intervalMs, forMs: event.forMs, cooldownMs: event.cooldownMs } : context)),
    silence: assign({ silencedUntil: ({ event, context }) => (event.type === "silence" ? event.until : context.silencedUntil) }),
    unsilence: assign({ silencedUntil: undefined }),
    acknowledge: assign(({ event, context }) => (event.type === "acknowledge" ? { acknowledgedBy: event.by, acknowledgedAt: event.at } : context)),
    raiseEvaluated: raise((_, evaluation: AlertEvaluation) => ({ type: "evaluated" as const, ...evaluation })),
    notifyFiring: () => {},
    notifyResolved: () => {},
  },
}).createMachine({
  id: "alert-rule",
  type: "parallel",
  context: ({ input }) => ({ ...input, stateSince: input.createdAt, figures: {}, observedAt: input.createdAt }),
  on: {
    silence: { actions: ["observe", "silence"] },
    unsilence: { actions: ["observe", "unsilence"] },
  },
  states: {
    condition: {
      initial: "ok",
      states: {
        ok: {
          on: {
            evaluated: [
              { guard: "firesAtOnce", target: "firing", actions: ["keepFigures", "enterState", "startFiring", "notifyFiring"] },
              { guard: "holds", target: "pending", actions: ["keepFigures", "enterState", "startPending"] },
              { actions: "keepFigures" },
            ],
          },
        },
        pending: {
          on: {
            evaluated: [
              { guard: "heldLongEnough", target: "firing", actions: ["keepFigures", "enterState", "startFiring", "notifyFiring"] },
              { guard: "stoppedHolding", target: "ok", actions: ["keepFigures", "enterState", "clearFiring"] },
              { actions: "keepFigures" },
            ],
          },
        },
        firing: {
          initial: "unacknowledged",
          on: {
            evaluated: [{ guard: "stoppedHolding", target: "resolved", actions: ["keepFigures", "enterState", "notifyResolved", "clearFiring"] }, { actions: "keepFigures" }],
          },
          states: {
            unacknowledged: { on: { acknowledge: { target: "acknowledged", actions: ["observe", "acknowledge"] } } },
            acknowledged: {},
          },
        },
        resolved: {
          on: {
            evaluated: [
              // Back to ok, which then judges this same evaluation.
              { guard: "cooledDown", target: "ok", actions: ["enterState", raise(({ event }) => event)] },
              { actions: "keepFigures" },
            ],
          },
        },
      },
    },
    evaluation: {
      initial: "waiting",
      states: {
        waiting: {
          after: { nextEvaluation: "evaluating" },
          on: {
            evaluate: { target: "evaluating", actions: "observe" },
            configure: { target: "waiting", reenter: true, actions: ["observe", "configure"] },
            rehydrated: { target: "waiting", reenter: true, actions: "observe" },
          },
        },
        evaluating: {
          on: { configure: { actions: ["observe", "configure"] } },
          invoke: {
            src: "evaluate",
            input: ({ context }) => ({ ruleId: context.ruleId }),
            onDone: { target: "waiting", actions: { type: "raiseEvaluated", params: ({ event }) => event.output } },
            onError: { target: "waiting", actions: "skipEvaluation" },
          },
        },
      },
    },
  },
});
