/** OpenAI's Conversations API, as the mock keeps it: conversations with their items, by id. */

interface Conversation {
  object: { id: string; object: "conversation"; created_at: number; metadata: Record<string, string> };
  items: Array<Record<string, unknown>>;
}

const notFound = (what: string) => Response.json({ error: { message: `${what} not found.`, type: "invalid_request_error", param: null, code: null } }, { status: 404 });
const newId = (prefix: string) => `${prefix}_${crypto.randomUUID().replaceAll("-", "")}${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;

function withIds(items: unknown): Array<Record<string, unknown>> {
  return ((items as Array<Record<string, unknown>> | undefined) ?? []).map((item) => ({ type: "message", ...item, id: newId("msg") }));
}

const list = (data: unknown[]) => ({ object: "list", data, first_id: (data[0] as { id?: string })?.id ?? null, last_id: (data.at(-1) as { id?: string })?.id ?? null, has_more: false });

/** Answers `/conversations...` paths (those under /v1), or undefined for any other path. */
export function conversationCall(conversations: Map<string, Conversation>, method: string, path: string, body: Record<string, unknown>): Response | undefined {
  const match = /^\/conversations(?:\/(conv_\w+)(?:\/items(?:\/(\w+))?)?)?$/.exec(path);
  if (!match) return undefined;
  const [, id, itemId] = match;
  const onItems = path.includes("/items");
  if (!id) {
    const conversation = { object: { id: newId("conv"), object: "conversation" as const, created_at: Math.floor(Date.now() / 1000), metadata: (body.metadata as Record<string, string>) ?? {} }, items: withIds(body.items) };
    conversations.set(conversation.object.id, conversation);
    return Response.json(conversation.object);
  }
  const conversation = conversations.get(id);
  if (!conversation) return notFound(`Conversation with id '${id}'`);
  if (!onItems) {
    if (method === "DELETE") {
      conversations.delete(id);
      return Response.json({ id, object: "conversation.deleted", deleted: true });
    }
    if (method === "POST") conversation.object.metadata = (body.metadata as Record<string, string>) ?? {};
    return Response.json(conversation.object);
  }
  if (!itemId) {
    if (method === "POST") {
      const added = withIds(body.items);
      conversation.items.push(...added);
      return Response.json(list(added));
    }
    return Response.json(list(conversation.items));
  }
  const item = conversation.items.find((candidate) => candidate.id === itemId);
  if (!item) return notFound(`Item with id '${itemId}'`);
  if (method === "DELETE") {
    conversation.items = conversation.items.filter((candidate) => candidate !== item);
    return Response.json(conversation.object);
  }
  return Response.json(item);
}

export type { Conversation };
