/**
 * A mock of OpenAI's API beyond text, in its real wire formats: the model list (per key, so a
 * key's health can be told), speech (audio bytes sent in several chunks, or SSE with
 * `stream_format: "sse"`), transcriptions and translations (multipart in), image generation and
 * edits (multipart in), moderations, input token counts, responses that read the files they name,
 * Jina/vLLM-style rerank, files and batches (mock-openai-files.ts), vector stores over those files,
 * uploads in parts and fine-tuning jobs (mock-openai-training.ts). Like OpenAI it refuses a
 * bearer it does not know with a 401; Azure's `api-key` header and deployment paths work too.
 */
import { MockFileStore } from "./mock-openai-files";
import { MockTraining } from "./mock-openai-training";
import { MockVectorStores } from "./mock-openai-vector-stores";

export interface PlatformRequest {
  method: string;
  /** Path and query as received. */
  path: string;
  headers: Headers;
  json?: Record<string, unknown>;
  form?: Awaited<ReturnType<Request["formData"]>>;
}

export interface MockOpenAIPlatform {
  url: string;
  /** The API root to configure as a provider's base_url. */
  baseUrl: string;
  /** Each accepted key and the models it reaches. */
  keys: Map<string, string[]>;
  requests: PlatformRequest[];
  store: MockFileStore;
  vectorStores: MockVectorStores;
  training: MockTraining;
  /** When set, a speech reply sends its first chunk and the rest only once this resolves. */
  speechHeldUntil?: Promise<void>;
  stop(): void;
}

const encoder = new TextEncoder();
const unauthorized = () => Response.json({ error: { message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key" } }, { status: 401 });
const countTokens = (text: string) => Math.max(1, text.split(/\s+/).filter(Boolean).length);

/** The audio a speech request gets: a fake MP3 frame header, then the input text, so tests can check what was spoken. */
export const spokenAudio = (input: string) => new Uint8Array([0xff, 0xf3, 0x44, 0xc4, ...encoder.encode(input)]);

function speech(body: Record<string, unknown>, heldUntil: Promise<void> | undefined): Response {
  const audio = spokenAudio(String(body.input));
  if (body.stream_format === "sse") {
    const events = [
      { type: "speech.audio.delta", audio: Buffer.from(audio).toString("base64") },
      { type: "speech.audio.done", usage: { input_tokens: countTokens(String(body.input)), output_tokens: audio.length, total_tokens: countTokens(String(body.input)) + audio.length } },
    ];
    return new Response(events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join(""), { headers: { "content-type": "text/event-stream" } });
  }
  const chunks = [audio.slice(0, 4), audio.slice(4)];
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const chunk = chunks.shift();
      if (!chunk) return controller.close();
      controller.enqueue(chunk);
      await (heldUntil ?? Bun.sleep(1));
    },
  });
  return new Response(stream, { headers: { "content-type": body.response_format === "wav" ? "audio/wav" : "audio/mpeg" } });
}

async function transcription(form: NonNullable<PlatformRequest["form"]>): Promise<Response> {
  const file = form.get("file");
  if (!(file instanceof File)) return Response.json({ error: { message: "file is required" } }, { status: 400 });
  const text = `transcribed ${file.size} bytes of ${file.name} with ${form.get("model")}`;
  if (form.get("response_format") === "text") return new Response(text, { headers: { "content-type": "text/plain" } });
  // whisper-1 reports the audio's length (a second a kilobyte here), the gpt-4o models their tokens.
  if (form.get("model") === "whisper-1") return Response.json({ text, usage: { type: "duration", seconds: Math.ceil(file.size / 1000) } });
  return Response.json({ text, usage: { type: "tokens", input_tokens: 10, output_tokens: countTokens(text), total_tokens: 10 + countTokens(text) } });
}

async function translation(form: NonNullable<PlatformRequest["form"]>): Promise<Response> {
  const file = form.get("file");
  if (!(file instanceof File)) return Response.json({ error: { message: "file is required" } }, { status: 400 });
  return Response.json({ text: `translated ${file.size} bytes of ${file.name} with ${form.get("model")}` });
}

/** The images to edit arrive as `image` or `image[]`; the edit names each one it got. */
function imageEdits(form: NonNullable<PlatformRequest["form"]>): Response {
  const files = [...form.getAll("image"), ...form.getAll("image[]")].flatMap((value) => (value instanceof File ? [value] : []));
  if (files.length === 0) return Response.json({ error: { message: "image is required" } }, { status: 400 });
  const data = files.map((file) => ({ b64_json: Buffer.from(`edited:${file.name}:${form.get("prompt")}`).toString("base64") }));
  return Response.json({ created: Math.floor(Date.now() / 1000), data, usage: { input_tokens: 50, output_tokens: 1000, total_tokens: 1050 } });
}

/** Flags an input that says "hate", as OpenAI's moderation shapes its results. */
function moderations(body: Record<string, unknown>): Response {
  const inputs = Array.isArray(body.input) ? body.input.map(String) : [String(body.input)];
  const results = inputs.map((text) => ({ flagged: /hate/i.test(text), categories: { hate: /hate/i.test(text) }, category_scores: { hate: /hate/i.test(text) ? 0.97 : 0.01 } }));
  return Response.json({ id: "modr-1", model: body.model, results });
}

function images(body: Record<string, unknown>): Response {
  const count = Number(body.n ?? 1);
  const data = Array.from({ length: count }, (_, index) =>
    body.response_format === "url" ? { url: `https://images.example/${index}.png` } : { b64_json: Buffer.from(`png:${body.prompt}:${index}`).toString("base64"), revised_prompt: `${body.prompt}, revised` },
  );
  // Only the gpt-image models report tokens; DALL·E is billed by the image.
  if (!String(body.model).startsWith("gpt-image")) return Response.json({ created: Math.floor(Date.now() / 1000), data });
  return Response.json({ created: Math.floor(Date.now() / 1000), data, usage: { input_tokens: countTokens(String(body.prompt)), output_tokens: 1000 * count, total_tokens: countTokens(String(body.prompt)) + 1000 * count } });
}

/** Responses over files: each `input_file` must name a file of this account, as on OpenAI; the answer quotes them. */
function responsesOverFiles(store: MockFileStore, body: Record<string, unknown>): Response {
  const parts = (Array.isArray(body.input) ? body.input : []).flatMap((item: { content?: unknown }) => (Array.isArray(item.content) ? item.content : [])) as Array<{ type?: string; file_id?: string }>;
  const quoted: string[] = [];
  for (const part of parts.filter((candidate) => candidate.type === "input_file")) {
    const file = store.files.get(String(part.file_id));
    if (!file) return Response.json({ error: { message: `No such File object: ${part.file_id}`, type: "invalid_request_error", param: "input", code: null } }, { status: 404 });
    quoted.push(`${file.filename}: ${new TextDecoder().decode(file.content)}`);
  }
  const text = `read ${quoted.join("; ")}`;
  const output = [{ type: "message", id: "msg_files", status: "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] }];
  return Response.json({ id: "resp_files", object: "response", created_at: Math.floor(Date.now() / 1000), status: "completed", model: body.model, output, usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 } });
}

function rerank(body: Record<string, unknown>): Response {
  const query = String(body.query).toLowerCase();
  const documents = body.documents as string[];
  const scored = documents.map((text, index) => ({ index, document: { text }, relevance_score: text.toLowerCase().includes(query) ? 0.9 : 0.1 / (index + 1) }));
  const results = scored.sort((a, b) => b.relevance_score - a.relevance_score).slice(0, Number(body.top_n ?? documents.length));
  return Response.json({ id: "rerank-1", model: body.model, results, usage: { total_tokens: documents.length * 5 } });
}

async function route(mock: MockOpenAIPlatform, method: string, path: string, request: Request, recorded: PlatformRequest): Promise<Response> {
  const key = request.headers.get("authorization")?.replace(/^Bearer /, "") ?? request.headers.get("api-key") ?? "";
  if (!mock.keys.has(key)) return unauthorized();
  if (method === "GET" && path === "/models") return Response.json({ object: "list", data: mock.keys.get(key)!.map((id) => ({ id, object: "model", created: 0, owned_by: "mock" })) });
  const type = request.headers.get("content-type") ?? "";
  if (type.startsWith("multipart/form-data")) recorded.form = await request.formData();
  else if (type.includes("json")) recorded.json = (await request.json()) as Record<string, unknown>;
  const stored = await mock.store.handle(method, path, recorded, new URL(request.url).searchParams);
  if (stored) return stored;
  const onVectorStore = mock.vectorStores.handle(method, path, recorded.json ?? {});
  if (onVectorStore) return onVectorStore;
  const onTraining = mock.training.handle(method, path, recorded.json ?? {}, recorded.form);
  if (onTraining) return onTraining;
  if (path === "/audio/transcriptions") return transcription(recorded.form!);
  if (path === "/audio/translations") return translation(recorded.form!);
  if (path === "/images/edits") return imageEdits(recorded.form!);
  const body = recorded.json ?? {};
  switch (path) {
    case "/audio/speech":
      return speech(body, mock.speechHeldUntil);
    case "/images/generations":
      return images(body);
    case "/responses":
      return responsesOverFiles(mock.store, body);
    case "/responses/input_tokens":
      return Response.json({ object: "response.input_tokens", input_tokens: countTokens(JSON.stringify(body.input)) });
    case "/rerank":
      return rerank(body);
    case "/moderations":
      return moderations(body);
    default:
      return Response.json({ error: { message: `mock has no route ${path}` } }, { status: 404 });
  }
}

export function startMockOpenAIPlatform(): MockOpenAIPlatform {
  const store = new MockFileStore();
  const mock: MockOpenAIPlatform = { url: "", baseUrl: "", keys: new Map(), requests: [], store, vectorStores: new MockVectorStores(store.files), training: new MockTraining(store), stop: () => server.stop(true) };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      const path = url.pathname.replace(/^.*?\/(v1|openai)(?=\/)/, "").replace(/^\/deployments\/[^/]+/, "");
      const recorded: PlatformRequest = { method: request.method, path: url.pathname + url.search, headers: request.headers };
      mock.requests.push(recorded);
      return route(mock, request.method, path, request, recorded);
    },
  });
  mock.url = `http://127.0.0.1:${server.port}`;
  mock.baseUrl = `${mock.url}/v1`;
  return mock;
}
