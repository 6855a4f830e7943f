/** Chat completions created with `store: true`, as OpenAI keeps them: listed, read, tagged, deleted, their messages listed. */

interface StoredCompletion {
  completion: Record<string, unknown> & { id: string; metadata?: Record<string, string> };
  messages: Array<Record<string, unknown>>;
}

const notFound = (id: string) => Response.json({ error: { message: `Chat completion ${id} not found.`, type: "invalid_request_error", param: null, code: null } }, { status: 404 });
const list = (data: Array<{ id: string }>) => ({ object: "list", data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: false });

/** The completion, kept when the request asked for it to be stored. */
export function keptIfAsked<Completion extends StoredCompletion["completion"]>(stored: Map<string, StoredCompletion>, body: Record<string, unknown>, completion: Completion): Completion {
  if (body.store !== true) return completion;
  const messages = ((body.messages as Array<Record<string, unknown>>) ?? []).map((message, index) => ({ ...message, id: `${completion.id}-${index}` }));
  stored.set(completion.id, { completion: { ...completion, metadata: (body.metadata as Record<string, string>) ?? {} }, messages });
  return completion;
}

/** Answers `GET /chat/completions`, `/chat/completions/{id}[/messages]` and their updates, or undefined for any other call. */
export function storedCompletionCall(stored: Map<string, StoredCompletion>, method: string, path: string, body: Record<string, unknown>): Response | undefined {
  if (method === "GET" && path === "/chat/completions") return Response.json(list([...stored.values()].map((entry) => entry.completion)));
  const match = /^\/chat\/completions\/(chatcmpl-[\w-]+)(\/messages)?$/.exec(path);
  if (!match) return undefined;
  const [, id, messages] = match;
  const entry = stored.get(id!);
  if (!entry) return notFound(id!);
  if (messages) return Response.json(list(entry.messages as Array<{ id: string }>));
  if (method === "DELETE") {
    stored.delete(id!);
    return Response.json({ id, object: "chat.completion.deleted", deleted: true });
  }
  if (method === "POST") entry.completion.metadata = (body.metadata as Record<string, string>) ?? {};
  return Response.json(entry.completion);
}

export type { StoredCompletion };
