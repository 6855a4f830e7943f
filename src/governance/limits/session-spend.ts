import type { SessionBudget } from "../../db/schema/types";
import { GatewayError } from "../../http/errors";

/** What one session of a virtual key has spent so far. */
export interface SessionSpent {
  cost: number;
  tokens: number;
  requests: number;
  lastAt: number;
}

/** Sessions remembered per key; the longest idle is forgotten past it, so a key's many short runs cannot grow memory without end. */
const MAX_SESSIONS_A_KEY = 10_000;

/**
 * Per virtual key, what each session (its conversation id) spent: in memory on this node only,
 * never saved. A Map keeps insertion order, and a charge moves its session to the end, so the
 * first entry is always the longest idle.
 */
export class SessionSpend {
  private readonly byKey = new Map<string, Map<string, SessionSpent>>();

  of(keyId: string, sessionId: string): SessionSpent | undefined {
    return this.byKey.get(keyId)?.get(sessionId);
  }

  charge(keyId: string, sessionId: string, cost: number, tokens: number, at: number): void {
    let sessions = this.byKey.get(keyId);
    if (!sessions) this.byKey.set(keyId, (sessions = new Map()));
    const spent = sessions.get(sessionId) ?? { cost: 0, tokens: 0, requests: 0, lastAt: at };
    sessions.delete(sessionId);
    sessions.set(sessionId, { cost: spent.cost + cost, tokens: spent.tokens + tokens, requests: spent.requests + 1, lastAt: at });
    if (sessions.size > MAX_SESSIONS_A_KEY) sessions.delete(sessions.keys().next().value!);
  }

  /** The key's sessions, most recently charged first. */
  list(keyId: string): Array<[string, SessionSpent]> {
    return [...(this.byKey.get(keyId) ?? [])].reverse();
  }
}

/** The limit of `budget` that `cost` and `tokens` reach, if any. */
export function reachedLimit(budget: SessionBudget, cost: number, tokens: number): "max_cost" | "max_tokens" | undefined {
  if (budget.max_cost !== undefined && cost >= budget.max_cost) return "max_cost";
  if (budget.max_tokens !== undefined && tokens >= budget.max_tokens) return "max_tokens";
  return undefined;
}

/** 402, naming the session and the limit it reached. */
export function sessionBudgetExceeded(sessionId: string, budget: SessionBudget, limit: "max_cost" | "max_tokens", cost: number, tokens: number): GatewayError {
  const used = limit === "max_cost" ? `$${cost.toFixed(6)} of $${budget.max_cost}` : `${tokens} of ${budget.max_tokens} tokens`;
  return new GatewayError({
    status: 402,
    errorType: "policy_session_budget_exceeded",
    message: `session '${sessionId}' reached its ${limit} of the virtual key's session_budgets: ${used}`,
    extra: { session_id: sessionId, limit, max: budget[limit]!, cost, tokens },
  });
}
