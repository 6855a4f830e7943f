import { and, desc, eq, gte, lt, notInArray } from "drizzle-orm";
import type { Database } from "../../db/client";
import { type WarpConversationRow, type WarpStoredMessage, warpConversations } from "../../db/schema/warp";
import { notFound } from "../../http/errors";

/** Saved chats one owner keeps at most: starting another removes the one whose last turn is oldest. */
export const MAX_CONVERSATIONS_PER_OWNER = 100;
const TITLE_CHARS = 80;

const titleOf = (question: string) => {
  const line = question.trim().replace(/\s+/g, " ");
  return line.length <= TITLE_CHARS ? line : `${line.slice(0, TITLE_CHARS - 1)}…`;
};

const conversationNotFound = (id: string) => notFound(`conversation '${id}' not found`, "caller_conversation_not_found");

/**
 * Saved agent chats. Each belongs to one owner and is visible only to them; one whose last turn
 * is older than the retention cutoff counts as gone even before the sweep removes it.
 */
export class ConversationStore {
  constructor(private readonly db: Database) {}

  async create(owner: string, question: string, now: Date): Promise<WarpConversationRow> {
    const row: WarpConversationRow = { id: crypto.randomUUID(), owner, title: titleOf(question), messages: [], createdAt: now, updatedAt: now };
    await this.db.insert(warpConversations).values(row);
    const kept = this.db
      .select({ id: warpConversations.id })
      .from(warpConversations)
      .where(eq(warpConversations.owner, owner))
      .orderBy(desc(warpConversations.updatedAt), desc(warpConversations.createdAt))
      .limit(MAX_CONVERSATIONS_PER_OWNER);
    await this.db.delete(warpConversations).where(and(eq(warpConversations.owner, owner), notInArray(warpConversations.id, kept)));
    return row;
  }

  async require(owner: string, id: string, keptSince: Date): Promise<WarpConversationRow> {
    const row = await this.db
      .select()
      .from(warpConversations)
      .where(and(eq(warpConversations.id, id), eq(warpConversations.owner, owner), gte(warpConversations.updatedAt, keptSince)))
      .get();
    if (!row) throw conversationNotFound(id);
    return row;
  }

  /** The owner's chats, most recent turn first, without their messages. */
  list(owner: string, keptSince: Date) {
    return this.db
      .select({ id: warpConversations.id, title: warpConversations.title, createdAt: warpConversations.createdAt, updatedAt: warpConversations.updatedAt })
      .from(warpConversations)
      .where(and(eq(warpConversations.owner, owner), gte(warpConversations.updatedAt, keptSince)))
      .orderBy(desc(warpConversations.updatedAt), desc(warpConversations.createdAt));
  }

  async appendTurn(conversation: WarpConversationRow, messages: readonly WarpStoredMessage[], now: Date): Promise<void> {
    await this.db
      .update(warpConversations)
      .set({ messages: [...conversation.messages, ...messages], updatedAt: now })
      .where(and(eq(warpConversations.id, conversation.id), eq(warpConversations.owner, conversation.owner)));
  }

  async remove(owner: string, id: string): Promise<void> {
    const result = await this.db.delete(warpConversations).where(and(eq(warpConversations.id, id), eq(warpConversations.owner, owner)));
    if (result.rowsAffected === 0) throw conversationNotFound(id);
  }

  async removeAll(owner: string): Promise<number> {
    return (await this.db.delete(warpConversations).where(eq(warpConversations.owner, owner))).rowsAffected;
  }

  /** Retention: every chat whose last turn is older than the cutoff. */
  async removeOlderThan(cutoff: Date): Promise<number> {
    return (await this.db.delete(warpConversations).where(lt(warpConversations.updatedAt, cutoff))).rowsAffected;
  }
}
