/**
 * OpenAI's vector stores (what the file_search tool searches), as the mock keeps them: a store
 * holds files of the mock's file store, each ready at once; a search returns each file's text
 * that contains the query.
 */
import type { StoredFile } from "./mock-openai-files";

interface VectorStoreFile {
  id: string;
  object: "vector_store.file";
  vector_store_id: string;
  status: "completed";
  usage_bytes: number;
  created_at: number;
  attributes: Record<string, unknown>;
  last_error: null;
}

interface VectorStore {
  object: { id: string; object: "vector_store"; name: string | null; status: "completed"; created_at: number; metadata: Record<string, string>; file_counts: { in_progress: number; completed: number; failed: number; cancelled: number; total: number }; usage_bytes: number };
  files: Map<string, VectorStoreFile>;
}

const now = () => Math.floor(Date.now() / 1000);
const newId = (prefix: string) => `${prefix}_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
const notFound = (what: string) => Response.json({ error: { message: `No ${what} found.`, type: "invalid_request_error", param: null, code: null } }, { status: 404 });
const list = (data: Array<{ id: string }>) => ({ object: "list", data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: false });

export class MockVectorStores {
  readonly stores = new Map<string, VectorStore>();

  constructor(private readonly files: Map<string, StoredFile>) {}

  /** Adds files by id; the first that is not a file of this account is the answer instead, as on OpenAI. */
  private attach(store: VectorStore, fileIds: unknown[], attributes: Record<string, unknown> = {}): VectorStoreFile[] | Response {
    const missing = fileIds.find((id) => !this.files.has(String(id)));
    if (missing !== undefined) return Response.json({ error: { message: `File ${missing} not found.`, type: "invalid_request_error", param: "file_id", code: null } }, { status: 400 });
    const attached = fileIds.map((id) => {
      const file = this.files.get(String(id))!;
      const entry: VectorStoreFile = { id: file.id, object: "vector_store.file", vector_store_id: store.object.id, status: "completed", usage_bytes: file.bytes, created_at: now(), attributes, last_error: null };
      store.files.set(file.id, entry);
      return entry;
    });
    store.object.file_counts = { in_progress: 0, completed: store.files.size, failed: 0, cancelled: 0, total: store.files.size };
    return attached;
  }

  private textOf(fileId: string): string {
    return new TextDecoder().decode(this.files.get(fileId)?.content ?? new Uint8Array());
  }

  /** Answers `/vector_stores...` paths (those under /v1), or undefined for any other path. */
  handle(method: string, path: string, body: Record<string, unknown>): Response | undefined {
    const match = /^\/vector_stores(?:\/(vs_\w+)(?:\/(files|file_batches|search)(?:\/([\w-]+)(?:\/(content|cancel|files))?)?)?)?$/.exec(path);
    if (!match) return undefined;
    const [, id, collection, itemId, action] = match;
    if (!id) {
      if (method === "GET") return Response.json(list([...this.stores.values()].map((store) => store.object)));
      const store: VectorStore = { object: { id: newId("vs"), object: "vector_store", name: (body.name as string) ?? null, status: "completed", created_at: now(), metadata: (body.metadata as Record<string, string>) ?? {}, file_counts: { in_progress: 0, completed: 0, failed: 0, cancelled: 0, total: 0 }, usage_bytes: 0 }, files: new Map() };
      const attached = this.attach(store, (body.file_ids as unknown[]) ?? []);
      if (attached instanceof Response) return attached;
      this.stores.set(store.object.id, store);
      return Response.json(store.object);
    }
    const store = this.stores.get(id);
    if (!store) return notFound(`vector store found with id '${id}'`);
    if (!collection) {
      if (method === "DELETE") {
        this.stores.delete(id);
        return Response.json({ id, object: "vector_store.deleted", deleted: true });
      }
      if (method === "POST") Object.assign(store.object, { name: body.name ?? store.object.name, metadata: body.metadata ?? store.object.metadata });
      return Response.json(store.object);
    }
    if (collection === "search") {
      const query = String(body.query ?? "").toLowerCase();
      const data = [...store.files.keys()].filter((fileId) => this.textOf(fileId).toLowerCase().includes(query)).map((fileId) => ({ file_id: fileId, filename: this.files.get(fileId)?.filename, score: 0.9, attributes: store.files.get(fileId)!.attributes, content: [{ type: "text", text: this.textOf(fileId) }] }));
      return Response.json({ object: "vector_store.search_results.page", search_query: [body.query], data, has_more: false, next_page: null });
    }
    if (collection === "file_batches") {
      if (!itemId) {
        const attached = this.attach(store, (body.file_ids as unknown[]) ?? []);
        if (attached instanceof Response) return attached;
        return Response.json({ id: newId("vsfb"), object: "vector_store.file_batch", vector_store_id: id, status: "completed", created_at: now(), file_counts: store.object.file_counts });
      }
      if (action === "files") return Response.json(list([...store.files.values()]));
      return Response.json({ id: itemId, object: "vector_store.file_batch", vector_store_id: id, status: action === "cancel" ? "cancelled" : "completed", created_at: now(), file_counts: store.object.file_counts });
    }
    if (!itemId) {
      if (method === "GET") return Response.json(list([...store.files.values()]));
      const attached = this.attach(store, [body.file_id], (body.attributes as Record<string, unknown>) ?? {});
      return attached instanceof Response ? attached : Response.json(attached[0]);
    }
    const file = store.files.get(itemId);
    if (!file) return notFound(`file found with id '${itemId}' in vector store '${id}'`);
    if (action === "content") return Response.json({ object: "vector_store.file_content.page", data: [{ type: "text", text: this.textOf(itemId) }], has_more: false, next_page: null });
    if (method === "DELETE") {
      store.files.delete(itemId);
      return Response.json({ id: itemId, object: "vector_store.file.deleted", deleted: true });
    }
    if (method === "POST") file.attributes = (body.attributes as Record<string, unknown>) ?? {};
    return Response.json(file);
  }
}
