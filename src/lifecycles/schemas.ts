import { t } from "elysia";
import { ACTOR_KINDS } from "../../actors/machines";
import { PageLimit, PageOffset } from "../http/pagination";

const STATUSES = ["active", "done", "error", "stopped"] as const;

/** One of `values`; the 400 for another value lists them (a union of literals would name only their type). */
const oneOf = (values: readonly string[]) => t.String({ pattern: `^(${values.join("|")})$` });

export const ActorKindName = oneOf(ACTOR_KINDS);
export const ActorStatusName = oneOf(STATUSES);

export const ActorListQuery = t.Object({
  kind: t.Optional(ActorKindName),
  /** A state path (`waiting_retry`, `completed.retained`); a parent state matches the states inside it. */
  state: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
  status: t.Optional(ActorStatusName),
  node: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
  limit: PageLimit(500),
  offset: PageOffset(),
});
export type ActorListQuery = typeof ActorListQuery.static;

export const MachineParams = t.Object({ kind: ActorKindName });
export const ActorParams = t.Object({ kind: ActorKindName, id: t.String({ minLength: 1 }) });

export const ActorEventsQuery = t.Object({
  kind: t.Optional(ActorKindName),
  id: t.Optional(t.String({ minLength: 1 })),
});
export type ActorEventsQuery = typeof ActorEventsQuery.static;
