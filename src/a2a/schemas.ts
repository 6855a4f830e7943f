import { type Static, t } from "elysia";
import { A2A_TASK_STATES } from "../../actors/a2a-task";
import { PageLimit, PageOffset } from "../http/pagination";

/** `history` is taken by /api/agents/history. */
export const RESERVED_AGENT_NAMES: ReadonlySet<string> = new Set(["history"]);

export const AgentName = t.String({
  pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$",
  description: "letters, digits, '.', '_' and '-', up to 64; it becomes part of the agent's gateway URLs",
});

/** An HTTP header name (RFC 9110 token). */
const HeaderName = t.String({ pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" });

const agentFields = {
  /** The agent's base URL (its card is at `/.well-known/agent-card.json` under it) or its card's URL. */
  url: t.String({ minLength: 1 }),
  description: t.Optional(t.String()),
  enabled: t.Optional(t.Boolean()),
  /** Sent to the upstream on every call; `env.NAME` values are read from the environment; encrypted at rest, redacted in responses. */
  headers: t.Optional(t.Record(HeaderName, t.String())),
};

/**
 * Response-only fields (`agent_card`, `created_at`, ...) may come back when a client writes
 * what it read, so bodies accept unknown fields; only the ones declared here are kept.
 */
const ACCEPTS_READ_FIELDS = { additionalProperties: true } as const;

export const AgentCreateInput = t.Object({ name: AgentName, ...agentFields }, ACCEPTS_READ_FIELDS);
export type AgentCreateInput = Static<typeof AgentCreateInput>;

/** A write replaces the agent whole; the name comes from the path. */
export const AgentUpdateInput = t.Object({ name: t.Optional(t.String()), ...agentFields }, ACCEPTS_READ_FIELDS);
export type AgentUpdateInput = Static<typeof AgentUpdateInput>;

export const AgentParams = t.Object({ name: t.String() });

const TaskState = t.Union(A2A_TASK_STATES.map((state) => t.Literal(state)));

export const TaskHistoryQuery = t.Object({
  agent: t.Optional(t.String()),
  task_id: t.Optional(t.String()),
  context_id: t.Optional(t.String()),
  state: t.Optional(TaskState),
  /** true: only tasks still in flight; false: only finished ones. */
  live: t.Optional(t.BooleanString()),
  virtual_key_id: t.Optional(t.String()),
  limit: PageLimit(1000, 100),
  offset: PageOffset(0),
});
export type TaskHistoryQuery = Static<typeof TaskHistoryQuery>;
