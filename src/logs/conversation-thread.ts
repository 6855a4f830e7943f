import { asc, eq } from "drizzle-orm";
import { type Static, Type as t } from "@sinclair/typebox";
import { requestLogs } from "../db/schema/logs";
import { notFound } from "../http/errors";
import { lastUserText, turnsOf } from "../inference/turn-text";
import type { ReadDatabase } from "./worker-reader";

/** Turns a thread shows at most, oldest first. */
const MAX_TURNS = 500;
/** Characters of each turn's question and answer a thread shows; the request's detail has the rest. */
const EXCERPT = 600;

const Tokens = {
  input_tokens: t.Integer(),
  cached_tokens: t.Integer({ description: "Input tokens the provider read from its prompt cache." }),
  output_tokens: t.Integer(),
  cost: t.Union([t.Number(), t.Null()], { description: "USD; null where the model has no price." }),
};

export const ConversationThread = t.Object({
  conversation_id: t.String(),
  turns: t.Array(
    t.Object({
      id: t.String({ description: "The request log's id: its detail has the whole request and reply." }),
      timestamp: t.String({ format: "date-time" }),
      provider: t.String(),
      model: t.String(),
      status: t.String(),
      selected_key_id: t.Union([t.String(), t.Null()]),
      complexity_tier: t.Union([t.String(), t.Null()]),
      ...Tokens,
      asked: t.Union([t.String(), t.Null()], { description: "The start of the turn's last user message; null when content was not logged." }),
      answered: t.Union([t.String(), t.Null()], { description: "The start of the reply; null when content was not logged." }),
    }),
    { description: `The requests of the conversation, oldest first (at most ${MAX_TURNS}).` },
  ),
  totals: t.Object({ turns: t.Integer(), ...Tokens, cost: t.Number({ description: "USD of the priced turns." }) }),
});
type ConversationThread = Static<typeof ConversationThread>;

const excerpt = (text: string | null | undefined) => (text ? (text.length > EXCERPT ? `${text.slice(0, EXCERPT)}…` : text) : null);

function askedIn(requestContent: string | null): string | null {
  if (!requestContent) return null;
  try {
    return excerpt(lastUserText(turnsOf(JSON.parse(requestContent) as Record<string, unknown>)));
  } catch {
    return null;
  }
}

/** The request log rows of one conversation (`conversation_id`), as a thread: each turn's question, answer, tokens and cost. */
export async function conversationThread(db: ReadDatabase, conversationId: string): Promise<ConversationThread> {
  const rows = await db.select().from(requestLogs).where(eq(requestLogs.conversationId, conversationId)).orderBy(asc(requestLogs.timestamp), asc(requestLogs.seq)).limit(MAX_TURNS);
  if (rows.length === 0) throw notFound(`no request of conversation '${conversationId}' is in the log`, "caller_conversation_not_found");
  const turns = rows.map((row) => ({
    id: row.id,
    timestamp: row.timestamp.toISOString(),
    provider: row.provider,
    model: row.model,
    status: row.status,
    selected_key_id: row.selectedKeyId,
    complexity_tier: row.complexityTier,
    input_tokens: row.inputTokens,
    cached_tokens: row.cachedTokens,
    output_tokens: row.outputTokens,
    cost: row.cost,
    asked: askedIn(row.requestContent),
    answered: excerpt(row.responseContent),
  }));
  const sum = (pick: (turn: (typeof turns)[number]) => number) => turns.reduce((total, turn) => total + pick(turn), 0);
  const totals = { turns: turns.length, input_tokens: sum((turn) => turn.input_tokens), cached_tokens: sum((turn) => turn.cached_tokens), output_tokens: sum((turn) => turn.output_tokens), cost: sum((turn) => turn.cost ?? 0) };
  return { conversation_id: conversationId, turns, totals };
}
