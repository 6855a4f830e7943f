import { and, asc, desc, eq, gt, inArray, isNull, lt } from "drizzle-orm";
import type { Database } from "../db/client";
import { inWriteTurn } from "../db/write-turns";
import { type ConversationRow, conversationItems, conversations } from "../db/schema";
import { type Item, keptItem, withUniqueIds } from "./items";

export interface ItemsPageQuery {
  order?: "asc" | "desc";
  limit?: number;
  after?: string;
}

/** One page of items and whether more follow it. */
export interface ItemsPage {
  items: Item[];
  hasMore: boolean;
}

/**
 * Conversations and their items. A caller sees only the conversations of its own virtual key
 * (one without a key, those created without one); the item calls are made once the
 * conversation has been found for the caller.
 */
export class ConversationStore {
  constructor(
    private readonly db: Database,
    private readonly clock: () => number,
  ) {}

  async create(id: string, owner: string | null, metadata: Record<string, string>, items: readonly Item[]): Promise<ConversationRow> {
    const row = { id, owner, metadata, createdAt: new Date(this.clock()) };
    const kept = withUniqueIds(items.map(keptItem), new Set());
    const insertConversation = this.db.insert(conversations).values(row);
    await this.write(async () => {
      if (kept.length > 0) await this.db.batch([insertConversation, this.insertItems(id, kept)]);
      else await insertConversation;
    });
    return row;
  }

  async find(id: string, owner: string | null): Promise<ConversationRow | undefined> {
    const ownedBy = owner ? eq(conversations.owner, owner) : isNull(conversations.owner);
    return this.db.select().from(conversations).where(and(eq(conversations.id, id), ownedBy)).get();
  }

  async setMetadata(id: string, metadata: Record<string, string>): Promise<void> {
    await this.write(() => this.db.update(conversations).set({ metadata }).where(eq(conversations.id, id)));
  }

  async delete(id: string): Promise<void> {
    await this.write(() => this.db.batch([this.db.delete(conversationItems).where(eq(conversationItems.conversationId, id)), this.db.delete(conversations).where(eq(conversations.id, id))]));
  }

  /** Every item, oldest first: what the next turn's model reads. */
  async allItems(id: string): Promise<Item[]> {
    const rows = await this.db.select({ item: conversationItems.item }).from(conversationItems).where(eq(conversationItems.conversationId, id)).orderBy(asc(conversationItems.seq));
    return rows.map((row) => row.item);
  }

  /** The items added, as kept (each with an id no other item of the conversation has). */
  async add(id: string, items: readonly Item[]): Promise<Item[]> {
    if (items.length === 0) return [];
    const kept = items.map(keptItem);
    // Read and written in one turn: no other write of this node adds an item in between.
    return this.write(async () => {
      const ids = kept.map((item) => String(item.id));
      const taken = await this.db.select({ itemId: conversationItems.itemId }).from(conversationItems).where(and(eq(conversationItems.conversationId, id), inArray(conversationItems.itemId, ids)));
      const unique = withUniqueIds(kept, new Set(taken.map((row) => row.itemId)));
      await this.insertItems(id, unique);
      return unique;
    });
  }

  /** A page of items, newest first unless `order` is `asc`, after the item `after` names; undefined when it names none. */
  async page(id: string, { order = "desc", limit = 20, after }: ItemsPageQuery): Promise<ItemsPage | undefined> {
    const inConversation = eq(conversationItems.conversationId, id);
    let from = inConversation;
    if (after !== undefined) {
      const anchor = await this.db.select({ seq: conversationItems.seq }).from(conversationItems).where(and(inConversation, eq(conversationItems.itemId, after))).get();
      if (!anchor) return undefined;
      from = and(inConversation, order === "asc" ? gt(conversationItems.seq, anchor.seq) : lt(conversationItems.seq, anchor.seq))!;
    }
    const rows = await this.db
      .select({ item: conversationItems.item })
      .from(conversationItems)
      .where(from)
      .orderBy(order === "asc" ? asc(conversationItems.seq) : desc(conversationItems.seq))
      .limit(limit + 1);
    return { items: rows.slice(0, limit).map((row) => row.item), hasMore: rows.length > limit };
  }

  async item(id: string, itemId: string): Promise<Item | undefined> {
    const row = await this.db.select({ item: conversationItems.item }).from(conversationItems).where(itemWhere(id, itemId)).get();
    return row?.item;
  }

  /** Whether the item was there to delete. */
  async deleteItem(id: string, itemId: string): Promise<boolean> {
    const removed = await this.write(() => this.db.delete(conversationItems).where(itemWhere(id, itemId)).returning({ seq: conversationItems.seq }));
    return removed.length > 0;
  }

  private insertItems(id: string, kept: readonly Item[]) {
    return this.db.insert(conversationItems).values(kept.map((item) => ({ conversationId: id, itemId: String(item.id), item })));
  }

  /** A turn's writes meet a stored response's transaction (both follow one reply): they take turns. */
  private write<T>(run: () => Promise<T>): Promise<T> {
    return inWriteTurn(this.db, run);
  }
}

const itemWhere = (id: string, itemId: string) => and(eq(conversationItems.conversationId, id), eq(conversationItems.itemId, itemId));
