import { Type as t } from "@sinclair/typebox";
import { PageFields, Timestamp } from "../http/replies";
import type { StateDescription as StateDescriptionType } from "./machine-description";

/** What /api/actors answers (actor-records.ts, machine-description.ts). */

const Status = t.Union([t.Literal("active"), t.Literal("done"), t.Literal("error"), t.Literal("stopped")]);
const StateValue = t.Unknown({ description: "xstate's state value: a name, or an object for nested states." });

const instanceFields = {
  kind: t.String({ description: "The machine: `async-job`, `webhook-endpoint`, ..." }),
  id: t.String(),
  state: StateValue,
  state_path: t.String({ description: "The state as a dotted path: `completed.retained`." }),
  status: Status,
  node: t.String({ description: "The node holding the actor's lease while it runs; the node of its last transition once it ended." }),
  created_at: Timestamp,
  updated_at: Timestamp,
  ended_at: t.Union([Timestamp, t.Null()]),
  next_timer_at: t.Union([Timestamp, t.Null()], { description: "When its next delayed transition is due, while it runs." }),
  lease_until: t.Union([Timestamp, t.Null()], { description: "While it runs: until when `node` holds its lease (renewed as it runs); another node may take it over after." }),
};

export const ActorPage = t.Object({ actors: t.Array(t.Object(instanceFields)), ...PageFields }, { title: "ActorPage" });

export const ActorCounts = t.Object({
  counts: t.Array(t.Object({ kind: t.String(), state: t.String({ description: "The state's dotted path." }), status: Status, count: t.Integer() })),
  total: t.Integer(),
}, { title: "ActorCounts" });

const Transition = t.Object({
  seq: t.Integer(),
  kind: t.String(),
  id: t.String(),
  from: t.Union([StateValue, t.Null()]),
  from_path: t.Union([t.String(), t.Null()], { description: "null for the first transition." }),
  event: t.String(),
  to: StateValue,
  to_path: t.String(),
  at: Timestamp,
  node: t.String(),
});

export const ActorRecord = t.Object(
  { ...instanceFields, context: t.Unknown({ description: "Its context while it runs, secrets redacted; null once ended." }), transitions: t.Array(Transition) },
  { title: "ActorRecord", description: "One actor: where it stands, its context and its transitions in order." },
);

const TransitionDescription = t.Object({
  event: t.String({ description: "The event type; empty for an eventless transition." }),
  trigger: t.Union([t.Literal("event"), t.Literal("delayed"), t.Literal("eventless")]),
  source: t.String(),
  targets: t.Array(t.String()),
  guard: t.Optional(t.Object({ name: t.String(), params: t.Optional(t.Unknown()) })),
  actions: t.Array(t.String()),
  reenter: t.Boolean(),
  delay: t.Optional(t.Union([t.Number(), t.String()], { description: "Milliseconds, or the name of the delay that computes them." })),
});

/**
 * A state; its children are described the same way. The schema stops at the first level (Elysia's
 * reply types cannot read a recursive one, nor the document refer to one); the type is the whole.
 */
const StateDescription = t.Unsafe<StateDescriptionType>(t.Object({
  id: t.String(),
  key: t.String(),
  type: t.Union([t.Literal("atomic"), t.Literal("compound"), t.Literal("parallel"), t.Literal("final"), t.Literal("history")]),
  initial: t.Optional(t.Array(t.String(), { description: "Ids of a compound state's initial child state(s)." })),
  entry: t.Array(t.String()),
  exit: t.Array(t.String()),
  invoke: t.Array(t.Object({ id: t.String(), src: t.String() })),
  transitions: t.Array(TransitionDescription),
  states: t.Record(t.String(), t.Unknown({ description: "A child state, described as this one." })),
}));

export const MachineDescription = t.Object({ kind: t.String(), id: t.String(), root: StateDescription }, { title: "MachineDescription", description: "A machine as data, read from its xstate definition." });
export const MachineList = t.Object({ machines: t.Array(MachineDescription) }, { title: "MachineList" });
