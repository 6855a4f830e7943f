import { and, desc, eq, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { governanceSessionSpend } from "../../db/schema";
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
 * Per virtual key, what each session (its conversation id) spent. A Map keeps insertion order,
 * and a charge moves its session to the end, so the first entry is always the longest idle.
 *
 * Alone on its database, a node keeps it in memory only, never saved. Given `shared`, a
 * database other nodes or workers use too, every charge is also added to the session's row in
 * one statement (`cost = cost + ?`, whichever node runs it), `refresh` reads the row before a
 * request is admitted, and `list` reads the rows: each node then holds a session to what every
 * node charged it, as a single node would.
 */
export class SessionSpend {
  private readonly byKey = new Map<string, Map<string, SessionSpent>>();

  constructor(private readonly shared?: Database) {}

  of(keyId: string, sessionId: string): SessionSpent | undefined {
    return this.byKey.get(keyId)?.get(sessionId);
  }

  /** On a shared database, reads what every node charged the session; undefined (nothing to wait for) otherwise. */
  refresh(keyId: string, sessionId: string): Promise<void> | undefined {
    if (!this.shared) return undefined;
    return this.shared
      .select()
      .from(governanceSessionSpend)
      .where(and(eq(governanceSessionSpend.virtualKeyId, keyId), eq(governanceSessionSpend.sessionId, sessionId)))
      .then(([row]) => {
        if (row) this.rememberShared(keyId, sessionId, row);
      });
  }

  charge(keyId: string, sessionId: string, cost: number, tokens: number, at: number): void {
    const spent = this.of(keyId, sessionId) ?? { cost: 0, tokens: 0, requests: 0, lastAt: at };
    this.remember(keyId, sessionId, { cost: spent.cost + cost, tokens: spent.tokens + tokens, requests: spent.requests + 1, lastAt: at });
    if (this.shared) void this.addShared(this.shared, keyId, sessionId, cost, tokens, at).catch((error) => console.error(`governance: the spend of session '${sessionId}' could not be saved`, error));
  }

  /** The key's sessions, most recently charged first: on a shared database, as every node charged them. */
  async list(keyId: string): Promise<Array<[string, SessionSpent]>> {
    if (!this.shared) return [...(this.byKey.get(keyId) ?? [])].reverse();
    const rows = await this.shared.select().from(governanceSessionSpend).where(eq(governanceSessionSpend.virtualKeyId, keyId)).orderBy(desc(governanceSessionSpend.lastAt)).limit(MAX_SESSIONS_A_KEY);
    return rows.map((row) => [row.sessionId, row]);
  }

  private async addShared(db: Database, keyId: string, sessionId: string, cost: number, tokens: number, at: number) {
    const spend = governanceSessionSpend;
    const [row] = await db
      .insert(spend)
      .values({ virtualKeyId: keyId, sessionId, cost, tokens, requests: 1, lastAt: at })
      .onConflictDoUpdate({
        target: [spend.virtualKeyId, spend.sessionId],
        set: { cost: sql`${spend.cost} + excluded.cost`, tokens: sql`${spend.tokens} + excluded.tokens`, requests: sql`${spend.requests} + 1`, lastAt: sql`max(${spend.lastAt}, excluded.last_at)` },
      })
      .returning();
    if (row) this.rememberShared(keyId, sessionId, row);
  }

  /** A row read or returned by the database, unless this node has since charged more than it holds (its own write is on its way). */
  private rememberShared(keyId: string, sessionId: string, row: SessionSpent) {
    const known = this.of(keyId, sessionId);
    if (!known || row.requests >= known.requests) this.remember(keyId, sessionId, row);
  }

  private remember(keyId: string, sessionId: string, spent: SessionSpent) {
    let sessions = this.byKey.get(keyId);
    if (!sessions) this.byKey.set(keyId, (sessions = new Map()));
    sessions.delete(sessionId);
    sessions.set(sessionId, { cost: spent.cost, tokens: spent.tokens, requests: spent.requests, lastAt: spent.lastAt });
    if (sessions.size > MAX_SESSIONS_A_KEY) sessions.delete(sessions.keys().next().value!);
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
