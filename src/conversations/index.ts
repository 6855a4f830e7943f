import type { Database } from "../db/client";
import type { ConversationRow } from "../db/schema";
import { badRequest, notFound } from "../http/errors";
import { conversationIdOf, inputItemsOf } from "../responses/chain";
import { checkedItems, checkedMetadata, type Item, inputOf } from "./items";
import { ConversationStore, type ItemsPageQuery } from "./store";
import { type ConversationTurn, recordingTurn } from "./turn";

type Body = Record<string, unknown>;

/** The calls of OpenAI's Conversations API, answered by the gateway for the conversations it keeps. */
export const CONVERSATION_OPERATIONS = [
  "conversation_create",
  "conversation_retrieve",
  "conversation_update",
  "conversation_delete",
  "conversation_items_list",
  "conversation_items_create",
  "conversation_item_retrieve",
  "conversation_item_delete",
] as const;
export type ConversationOperation = (typeof CONVERSATION_OPERATIONS)[number];

const CONVERSATION_ID = /^conv_[0-9a-f]{32}$/;

/** Whether `id` has the shape of the gateway's conversation ids; OpenAI's own are longer. */
const ownsId = (id: string) => CONVERSATION_ID.test(id);

const view = (row: ConversationRow) => ({ id: row.id, object: "conversation", created_at: Math.floor(row.createdAt.getTime() / 1000), metadata: row.metadata });

const list = (data: Item[], hasMore: boolean) => ({ object: "list", data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: hasMore });

function pageQueryOf(search: URLSearchParams): ItemsPageQuery {
  const order = search.get("order") ?? undefined;
  if (order !== undefined && order !== "asc" && order !== "desc") throw badRequest("order must be asc or desc", "order");
  const rawLimit = search.get("limit");
  const limit = rawLimit === null ? undefined : Number(rawLimit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > 100)) throw badRequest("limit must be an integer from 1 to 100", "limit");
  return { order, limit, after: search.get("after") ?? undefined };
}

export interface ConversationsOptions {
  db: Database;
  /** The virtual key id a request presents (a wrong key is refused), or undefined. */
  callerOf(headers: Headers): string | undefined;
  clock?: () => number;
}

export interface ConversationCall {
  params?: Record<string, string>;
  json?: unknown;
}

/**
 * OpenAI's Conversations API, kept by the gateway where no provider keeps conversations (or the
 * client asks the gateway to): the calls on `/conversations`, and Responses calls that name one
 * in `conversation`, on any provider. Ids of OpenAI's shape are OpenAI's, and go there.
 */
export function createConversations({ db, callerOf, clock = Date.now }: ConversationsOptions) {
  const store = new ConversationStore(db, clock);
  const ownerOf = (headers: Headers) => callerOf(headers) ?? null;

  const found = async (id: string, owner: string | null) => {
    const row = await store.find(id, owner);
    if (!row) throw notFound(`no conversation '${id}' is kept by this gateway for this caller`);
    return row;
  };
  const itemMissing = (id: string, itemId: string) => notFound(`conversation '${id}' has no item '${itemId}'`);

  /** Each call, answered as OpenAI's API answers it. */
  async function answer(operation: ConversationOperation, request: Request, { params = {}, json }: ConversationCall): Promise<unknown> {
    const owner = ownerOf(request.headers);
    const body = (json ?? {}) as Body;
    if (operation === "conversation_create") {
      const row = await store.create(`conv_${crypto.randomUUID().replaceAll("-", "")}`, owner, checkedMetadata(body.metadata), checkedItems(body.items, "items", false));
      return view(row);
    }
    const id = params.id!;
    const row = await found(id, owner);
    switch (operation) {
      case "conversation_retrieve":
        return view(row);
      case "conversation_update": {
        if (body.metadata === undefined) throw badRequest("metadata is required", "metadata");
        const metadata = checkedMetadata(body.metadata);
        await store.setMetadata(id, metadata);
        return view({ ...row, metadata });
      }
      case "conversation_delete":
        await store.delete(id);
        return { id, object: "conversation.deleted", deleted: true };
      case "conversation_items_list": {
        const query = pageQueryOf(new URL(request.url).searchParams);
        const page = await store.page(id, query);
        if (!page) throw badRequest(`after '${query.after}' is not an item of conversation '${id}'`, "after");
        return list(page.items, page.hasMore);
      }
      case "conversation_items_create":
        return list(await store.add(id, checkedItems(body.items, "items", true)), false);
      case "conversation_item_retrieve": {
        const item = await store.item(id, params.item_id!);
        if (!item) throw itemMissing(id, params.item_id!);
        return item;
      }
      case "conversation_item_delete":
        if (!(await store.deleteItem(id, params.item_id!))) throw itemMissing(id, params.item_id!);
        return view(row);
    }
  }

  /** The id of a conversation the gateway keeps that a Responses call's `conversation` names; undefined for any other. */
  const keptIdOf = (conversation: unknown) => {
    const id = conversationIdOf(conversation);
    return id !== undefined && ownsId(id) ? id : undefined;
  };

  return {
    ownsId,
    keptIdOf,
    answer,
    /**
     * A Responses call naming a conversation the gateway keeps, written out whole: the
     * conversation's items, then the call's own input. Any other call comes back as it came.
     */
    async joined(body: Body, owner: string | undefined): Promise<{ body: Body; turn?: ConversationTurn }> {
      const id = keptIdOf(body.conversation);
      if (id === undefined) return { body };
      if (body.previous_response_id !== undefined && body.previous_response_id !== null) {
        throw badRequest("conversation and previous_response_id cannot both be set: the conversation already holds the earlier turns", "conversation");
      }
      await found(id, owner ?? null);
      const { conversation: _, ...rest } = body;
      const input = inputItemsOf(body) as Item[];
      const earlier = (await store.allItems(id)).map(inputOf);
      return { body: { ...rest, input: [...earlier, ...input] }, turn: { id, input } };
    },
    /** The reply to a turn, adding the turn to its conversation before it ends. */
    recording: (turn: ConversationTurn, reply: Response) =>
      recordingTurn(turn, reply, async (items) => {
        await store.add(turn.id, items);
      }),
  };
}

export type Conversations = ReturnType<typeof createConversations>;
export type { ConversationTurn };
