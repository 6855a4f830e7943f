/**
 * OpenAI's files and batches as a mock keeps them: uploads in memory, batches that stay
 * `validating` until the test completes them, whereupon the output file holds one echo chat
 * completion per input line, in OpenAI's batch output format.
 */

export interface StoredFile {
  id: string;
  object: "file";
  bytes: number;
  created_at: number;
  filename: string;
  purpose: string;
  status: "processed";
  content: Uint8Array;
}

export interface BatchObject {
  id: string;
  object: "batch";
  endpoint: string;
  input_file_id: string;
  completion_window: string;
  status: string;
  output_file_id: string | null;
  error_file_id: string | null;
  created_at: number;
  metadata: Record<string, string> | null;
  request_counts: { total: number; completed: number; failed: number };
}

const now = () => Math.floor(Date.now() / 1000);
const notFound = (what: string) => Response.json({ error: { message: `No such ${what}`, type: "invalid_request_error", code: "not_found" } }, { status: 404 });
const fileView = ({ content: _content, ...file }: StoredFile) => file;
const list = <T extends { id: string }>(data: T[]) => ({ object: "list", data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: false });

/** A request's body as the mock server read it. */
export interface RequestBody {
  json?: Record<string, unknown>;
  form?: Awaited<ReturnType<Request["formData"]>>;
}

type BatchLine = { custom_id: string; body: { model: string; messages: Array<{ content: string }> } };

export class MockFileStore {
  readonly files = new Map<string, StoredFile>();
  readonly batches = new Map<string, BatchObject>();

  store(filename: string, purpose: string, content: Uint8Array): StoredFile {
    const file: StoredFile = { id: `file-${crypto.randomUUID().slice(0, 12)}`, object: "file", bytes: content.byteLength, created_at: now(), filename, purpose, status: "processed", content };
    this.files.set(file.id, file);
    return file;
  }

  /** Completes a batch as OpenAI would: an output file with one echo chat completion per input line. */
  completeBatch(id: string): BatchObject {
    const batch = this.batches.get(id)!;
    const input = new TextDecoder().decode(this.files.get(batch.input_file_id)!.content);
    const lines = input.split("\n").filter(Boolean).map((line) => JSON.parse(line) as BatchLine);
    const output = lines.map((line, index) => {
      const text = `echo: ${line.body.messages.at(-1)?.content}`;
      const body = { id: `chatcmpl-${index}`, object: "chat.completion", created: now(), model: line.body.model, choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }], usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } };
      return JSON.stringify({ id: `batch_req_${index}`, custom_id: line.custom_id, response: { status_code: 200, request_id: `req_${index}`, body }, error: null });
    });
    const file = this.store(`${id}_output.jsonl`, "batch_output", new TextEncoder().encode(`${output.join("\n")}\n`));
    Object.assign(batch, { status: "completed", output_file_id: file.id, request_counts: { total: lines.length, completed: lines.length, failed: 0 } });
    return batch;
  }

  /** Answers a files or batches call (its body already read: `form` or `json`); undefined for any other path. */
  async handle(method: string, path: string, body: RequestBody, query: URLSearchParams): Promise<Response | undefined> {
    const [, collection, id, action] = path.split("/");
    if (collection === "files") return this.fileRoute(method, id, action, body, query);
    if (collection === "batches") return this.batchRoute(method, id, action, body);
    return undefined;
  }

  private async fileRoute(method: string, id: string | undefined, action: string | undefined, { form }: RequestBody, query: URLSearchParams): Promise<Response> {
    if (!id && method === "POST" && form) {
      const file = form.get("file");
      if (!(file instanceof File) || !form.get("purpose")) return Response.json({ error: { message: "file and purpose are required" } }, { status: 400 });
      return Response.json(fileView(this.store(file.name, String(form.get("purpose")), new Uint8Array(await file.arrayBuffer()))));
    }
    if (!id) {
      const purpose = query.get("purpose");
      return Response.json(list([...this.files.values()].filter((file) => !purpose || file.purpose === purpose).map(fileView)));
    }
    const file = this.files.get(id);
    if (!file) return notFound("file");
    if (method === "DELETE") {
      this.files.delete(id);
      return Response.json({ id, object: "file", deleted: true });
    }
    if (action === "content") return new Response(file.content, { headers: { "content-type": "application/octet-stream" } });
    return Response.json(fileView(file));
  }

  private batchRoute(method: string, id: string | undefined, action: string | undefined, { json }: RequestBody): Response {
    if (!id && method === "POST") {
      const body = json ?? {};
      const unknown = Object.keys(body).filter((field) => !["input_file_id", "endpoint", "completion_window", "metadata", "output_expires_after"].includes(field));
      if (unknown.length) return Response.json({ error: { message: `Unrecognized request argument supplied: ${unknown.join(", ")}` } }, { status: 400 });
      if (!this.files.has(String(body.input_file_id))) return notFound("file");
      const batch: BatchObject = {
        id: `batch_${crypto.randomUUID().slice(0, 12)}`,
        object: "batch",
        endpoint: String(body.endpoint),
        input_file_id: String(body.input_file_id),
        completion_window: String(body.completion_window),
        status: "validating",
        output_file_id: null,
        error_file_id: null,
        created_at: now(),
        metadata: (body.metadata as Record<string, string>) ?? null,
        request_counts: { total: 0, completed: 0, failed: 0 },
      };
      this.batches.set(batch.id, batch);
      return Response.json(batch);
    }
    if (!id) return Response.json(list([...this.batches.values()]));
    const batch = this.batches.get(id);
    if (!batch) return notFound("batch");
    if (action === "cancel" && method === "POST") batch.status = "cancelling";
    return Response.json(batch);
  }
}
