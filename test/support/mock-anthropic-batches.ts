import { type Skill, skillRoute } from "./mock-anthropic-skills";

/**
 * A mock of Anthropic's Message Batches, Files and Skills (mock-anthropic-skills.ts) APIs in their real wire formats. Batches stay
 * `in_progress` until the test ends them, and can be deleted only then; their results are JSONL, one line per request, echoing
 * the request's last user text (a request whose text asks to fail is `errored`). Files need the
 * files beta header; like Anthropic's, uploaded files cannot be downloaded.
 */

type Params = { model?: string; max_tokens?: number; messages?: Array<{ role: string; content: unknown }> };

interface MessageBatch {
  id: string;
  type: "message_batch";
  processing_status: "in_progress" | "canceling" | "ended";
  request_counts: { processing: number; succeeded: number; errored: number; canceled: number; expired: number };
  created_at: string;
  ended_at: string | null;
  expires_at: string;
  cancel_initiated_at: string | null;
  results_url: string | null;
  requests: Array<{ custom_id: string; params: Params }>;
}

export interface MockAnthropicBatches {
  baseUrl: string;
  apiKey: string;
  requests: Array<{ method: string; path: string; headers: Headers; json?: Record<string, unknown> }>;
  batches: Map<string, MessageBatch>;
  files: Map<string, AnthropicFile>;
  skills: Map<string, Skill>;
  /** Ends a batch as Anthropic does once every request ran. */
  endBatch(id: string): void;
  stop(): void;
}

const error = (status: number, type: string, message: string) => Response.json({ type: "error", error: { type, message } }, { status });
const textOf = (content: unknown): string => (typeof content === "string" ? content : (content as Array<{ text?: string }>).map((block) => block.text ?? "").join(""));
const view = ({ requests: _requests, ...batch }: MessageBatch) => batch;
const page = <T extends { id: string }>(data: T[]) => ({ data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null });

function resultLine({ custom_id, params }: MessageBatch["requests"][number]): string {
  const text = textOf(params.messages!.at(-1)!.content);
  if (/fail/.test(text)) return JSON.stringify({ custom_id, result: { type: "errored", error: { type: "error", error: { type: "invalid_request_error", message: `refused: ${text}` } } } });
  const message = { id: `msg_${custom_id}`, type: "message", role: "assistant", model: params.model, content: [{ type: "text", text: `echo: ${text}` }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 5, output_tokens: 3 } };
  return JSON.stringify({ custom_id, result: { type: "succeeded", message } });
}

function createBatch(mock: MockAnthropicBatches, body: Record<string, unknown>): Response {
  const requests = body.requests as MessageBatch["requests"] | undefined;
  if (!Array.isArray(requests) || requests.length === 0) return error(400, "invalid_request_error", "requests: Field required");
  const invalid = requests.findIndex((request) => !request.params?.model || !request.params.max_tokens || !Array.isArray(request.params.messages));
  if (invalid >= 0) return error(400, "invalid_request_error", `requests.${invalid}.params: model, max_tokens and messages are required`);
  const now = new Date();
  const batch: MessageBatch = {
    id: `msgbatch_${crypto.randomUUID().slice(0, 12)}`,
    type: "message_batch",
    processing_status: "in_progress",
    request_counts: { processing: requests.length, succeeded: 0, errored: 0, canceled: 0, expired: 0 },
    created_at: now.toISOString(),
    ended_at: null,
    expires_at: new Date(now.getTime() + 86_400_000).toISOString(),
    cancel_initiated_at: null,
    results_url: null,
    requests,
  };
  mock.batches.set(batch.id, batch);
  return Response.json(view(batch));
}

function batchRoute(mock: MockAnthropicBatches, method: string, parts: string[], body: Record<string, unknown>): Response {
  const [id, action] = parts;
  if (!id) return method === "POST" ? createBatch(mock, body) : Response.json(page([...mock.batches.values()].map(view)));
  const batch = mock.batches.get(id);
  if (!batch) return error(404, "not_found_error", `batch ${id} not found`);
  if (method === "DELETE") {
    if (batch.processing_status !== "ended") return error(400, "invalid_request_error", `batch ${id} is still processing; cancel it, and delete it once it has ended`);
    mock.batches.delete(id);
    return Response.json({ id, type: "message_batch_deleted" });
  }
  if (action === "cancel") Object.assign(batch, { processing_status: "canceling", cancel_initiated_at: new Date().toISOString() });
  if (action !== "results") return Response.json(view(batch));
  if (batch.processing_status !== "ended") return error(404, "not_found_error", "results are not available until the batch has ended");
  return new Response(`${batch.requests.map(resultLine).join("\n")}\n`, { headers: { "content-type": "application/binary" } });
}

interface AnthropicFile {
  id: string;
  type: "file";
  filename: string;
  mime_type: string;
  size_bytes: number;
  created_at: string;
  downloadable: boolean;
}

async function fileRoute(files: Map<string, AnthropicFile>, method: string, parts: string[], request: Request): Promise<Response> {
  if (!request.headers.get("anthropic-beta")?.includes("files-api-2025-04-14")) return error(400, "invalid_request_error", "the files API needs the anthropic-beta header files-api-2025-04-14");
  const [id, action] = parts;
  if (!id && method === "POST") {
    const file = (await request.formData()).get("file") as File;
    const stored: AnthropicFile = { id: `file_${crypto.randomUUID().slice(0, 12)}`, type: "file", filename: file.name, mime_type: file.type || "application/octet-stream", size_bytes: file.size, created_at: new Date().toISOString(), downloadable: false };
    files.set(stored.id, stored);
    return Response.json(stored);
  }
  if (!id) return Response.json(page([...files.values()]));
  const file = files.get(id);
  if (!file) return error(404, "not_found_error", `file ${id} not found`);
  if (method === "DELETE") {
    files.delete(id);
    return Response.json({ id, type: "file_deleted" });
  }
  if (action === "content") return error(400, "invalid_request_error", `file ${id} is not downloadable`);
  return Response.json(file);
}

export function startMockAnthropicBatches(apiKey: string): MockAnthropicBatches {
  const mock: MockAnthropicBatches = {
    baseUrl: "",
    apiKey,
    requests: [],
    batches: new Map(),
    files: new Map(),
    skills: new Map(),
    endBatch(id) {
      const batch = mock.batches.get(id)!;
      const errored = batch.requests.filter((request) => /fail/.test(textOf(request.params.messages!.at(-1)!.content))).length;
      Object.assign(batch, { processing_status: "ended", ended_at: new Date().toISOString(), results_url: `${mock.baseUrl}/messages/batches/${id}/results`, request_counts: { processing: 0, succeeded: batch.requests.length - errored, errored, canceled: 0, expired: 0 } });
    },
    stop: () => server.stop(true),
  };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      const json = request.headers.get("content-type")?.includes("json") ? ((await request.json()) as Record<string, unknown>) : undefined;
      mock.requests.push({ method: request.method, path: url.pathname + url.search, headers: request.headers, json });
      if (request.headers.get("x-api-key") !== apiKey) return error(401, "authentication_error", "invalid x-api-key");
      if (!request.headers.get("anthropic-version")) return error(400, "invalid_request_error", "anthropic-version header is required");
      const parts = url.pathname.replace(/^\/v1\//, "").split("/");
      if (parts[0] === "messages" && parts[1] === "batches") return batchRoute(mock, request.method, parts.slice(2), json ?? {});
      if (parts[0] === "files") return fileRoute(mock.files, request.method, parts.slice(1), request);
      if (parts[0] === "skills") return skillRoute(mock.skills, request.method, parts.slice(1), request);
      return error(404, "not_found_error", `no route ${url.pathname}`);
    },
  });
  mock.baseUrl = `http://127.0.0.1:${server.port}/v1`;
  return mock;
}
