import { Type as t } from "@sinclair/typebox";
import { Message, Timestamp } from "../http/replies";

/** What the Warp routes answer besides its configuration (config/schema.ts): saved chats and the log index's backfill. */

const conversationFields = { id: t.String(), title: t.String({ description: "The chat's first question, shortened." }), created_at: Timestamp, updated_at: Timestamp };

const ToolCall = t.Object({ id: t.String(), type: t.Literal("function"), function: t.Object({ name: t.String(), arguments: t.String({ description: "JSON text." }) }) });
const SavedMessage = t.Object({
  role: t.Union([t.Literal("user"), t.Literal("assistant"), t.Literal("tool")]),
  content: t.Union([t.String(), t.Null()]),
  tool_calls: t.Optional(t.Array(ToolCall)),
  tool_call_id: t.Optional(t.String()),
});

export const WarpConversationList = t.Object(
  { conversations: t.Array(t.Object(conversationFields, { title: "WarpConversationSummary" })), count: t.Integer() },
  { title: "WarpConversationList", description: "The caller's own saved chats within the retention, most recent first." },
);
export const WarpConversation = t.Object({ ...conversationFields, messages: t.Array(SavedMessage) }, { title: "WarpConversation", description: "One saved chat with its messages, tool calls and results included." });
export const WarpConversationsDeleted = t.Object({ message: Message, deleted: t.Integer({ description: "Chats deleted." }) }, { title: "WarpConversationsDeleted" });

const countOf = (what: string) => t.Integer({ description: what });

export const BackfillRun = t.Object(
  {
    state: t.Union([t.Literal("idle"), t.Literal("running"), t.Literal("completed"), t.Literal("cancelled"), t.Literal("failed")]),
    namespace: t.Optional(t.String()),
    embedding_provider: t.Optional(t.String()),
    embedding_model: t.Optional(t.String()),
    embedding_dimension: t.Optional(t.Integer()),
    total_logs: countOf("Logs without a vector in the space when the run started."),
    processed_logs: countOf("Logs read so far."),
    indexed_logs: countOf("Logs embedded so far (a log with no text is read but not embedded)."),
    started_at: t.Optional(Timestamp),
    finished_at: t.Optional(Timestamp),
    error: t.Optional(t.String({ description: "Why a failed run stopped." })),
  },
  { title: "LogIndexBackfill", description: "The last log-index backfill run on this node, or `idle` when none ran." },
);
export const BackfillStatus = t.Object(
  {
    ...BackfillRun.properties,
    vectors_in_space: countOf("Vectors stored in the configured embedding space: the logs semantic search can find."),
    live_index: t.Object(
      { queued: countOf("New logs waiting to be embedded."), indexed: t.Integer(), failed: t.Integer(), dropped: countOf("New logs left to a backfill because the queue was full.") },
      { description: "The indexer of new logs, since this node started." },
    ),
  },
  { title: "LogIndexStatus" },
);
