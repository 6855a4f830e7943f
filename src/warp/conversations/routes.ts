import { Elysia, t } from "elysia";
import { principalOf } from "../../access";
import { Deleted, replies } from "../../http/replies";
import { WarpConversation, WarpConversationList, WarpConversationsDeleted } from "../replies";
import type { WarpConversationRow } from "../../db/schema/warp";
import { keptSince, ownerOf } from "./ownership";
import type { WarpConfigStore } from "../config/store";
import type { ConversationStore } from "./store";

export interface ConversationDeps {
  config: WarpConfigStore;
  conversations: ConversationStore;
  clock: () => Date;
}

const summaryView = (row: Pick<WarpConversationRow, "id" | "title" | "createdAt" | "updatedAt">) => ({
  id: row.id,
  title: row.title,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});

const IdParams = t.Object({ id: t.String() });

/** /api/warp/conversations: the caller's own saved chats, listed, read and deleted. */
export const conversationRoutes = ({ config, conversations, clock }: ConversationDeps) => {
  const retained = async () => keptSince(await config.read(), clock());
  return new Elysia({ name: "warp-conversations", prefix: "/api/warp/conversations" })
    .get("/", async ({ request }) => {
      const rows = await conversations.list(ownerOf(principalOf(request)), await retained());
      return { conversations: rows.map(summaryView), count: rows.length };
    }, replies({ 200: WarpConversationList }, { summary: "List your Warp conversations" }))
    .delete("/", async ({ request }) => {
      const deleted = await conversations.removeAll(ownerOf(principalOf(request)));
      return { message: "Conversations deleted successfully", deleted };
    }, replies({ 200: WarpConversationsDeleted }, { summary: "Delete all your Warp conversations" }))
    .get(
      "/:id",
      async ({ params, request }) => {
        const row = await conversations.require(ownerOf(principalOf(request)), params.id, await retained());
        return { ...summaryView(row), messages: row.messages };
      },
      { params: IdParams, ...replies({ 200: WarpConversation }, { summary: "Get one of your Warp conversations" }) },
    )
    .delete(
      "/:id",
      async ({ params, request }) => {
        await conversations.remove(ownerOf(principalOf(request)), params.id);
        return { message: "Conversation deleted successfully" };
      },
      { params: IdParams, ...replies({ 200: Deleted }, { summary: "Delete one of your Warp conversations" }) },
    );
};
