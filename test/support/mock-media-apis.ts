/**
 * Mocks of the providers with wire formats of their own, each under its own root on one server,
 * each answering in its real format: Cloudflare Workers AI (`/client/v4/accounts/{id}/ai/...`),
 * Replicate predictions (`/replicate/v1/...`), Hugging Face's router and HF Inference
 * pipelines (`/hf/...`), ElevenLabs (`/elevenlabs/v1/...`), Voyage AI (`/voyage/v1/...`), Jina AI
 * (`/jina/v1/...`), Stability AI (`/stability/v2beta/...`) and IBM watsonx.ai (`/watsonx/ml/v1/...`,
 * with IBM Cloud IAM's token exchange at `/iam/identity/token`). Each refuses a request without
 * its key in its own header; every request is recorded with its body as JSON, form or bytes.
 */

export interface MediaRequest {
  method: string;
  /** Path and query, below the provider's root. */
  path: string;
  headers: Headers;
  json?: Record<string, unknown>;
  form?: Awaited<ReturnType<Request["formData"]>>;
  bytes?: Uint8Array;
}

type MediaProvider = "cloudflare" | "replicate" | "huggingface" | "elevenlabs" | "voyage" | "jina" | "stability" | "iam" | "watsonx";

export interface MockMediaApis {
  roots: Record<MediaProvider, string>;
  requests: Record<MediaProvider, MediaRequest[]>;
  keys: Record<MediaProvider, string>;
  stop(): void;
}

const encoder = new TextEncoder();
/** What an image model draws for a prompt, so tests can check it. */
export const drawn = (prompt: string) => encoder.encode(`PNG:${prompt}`);
/** What a speech model says for a text. */
export const spoken = (text: string) => encoder.encode(`AUDIO:${text}`);

const chat = (model: unknown, text: string) => ({
  id: "chatcmpl-media",
  object: "chat.completion",
  created: 0,
  model,
  choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
  usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
});
const lastUser = (body: Record<string, unknown>) => String((body.messages as Array<{ content: string }>).at(-1)?.content);
const denied = (message: string) => Response.json({ error: message }, { status: 401 });

async function record(request: Request, path: string): Promise<MediaRequest> {
  const type = request.headers.get("content-type") ?? "";
  const recorded: MediaRequest = { method: request.method, path, headers: request.headers };
  if (type.includes("json")) recorded.json = (await request.json()) as Record<string, unknown>;
  else if (type.includes("multipart/form-data")) recorded.form = await request.formData();
  else if (request.method !== "GET") recorded.bytes = new Uint8Array(await request.arrayBuffer());
  return recorded;
}

function cloudflare(recorded: MediaRequest): Response {
  const run = recorded.path.match(/^\/accounts\/[^/]+\/ai\/run\/(.+)$/)?.[1];
  if (recorded.path.endsWith("/ai/v1/chat/completions")) return Response.json(chat(recorded.json!.model, `workers ai: ${lastUser(recorded.json!)}`));
  if (recorded.path.includes("/ai/models/search")) return Response.json({ success: true, result: [{ name: "@cf/meta/llama-3.1-8b-instruct" }] });
  if (!run) return Response.json({ success: false, errors: [{ message: "no route" }] }, { status: 404 });
  if (run.includes("whisper")) return Response.json({ success: true, result: { text: `heard ${recorded.bytes!.length} bytes` } });
  if (run.includes("melotts")) return Response.json({ success: true, result: { audio: Buffer.from(spoken(String(recorded.json!.prompt))).toString("base64") } });
  return Response.json({ success: true, result: { image: Buffer.from(drawn(String(recorded.json!.prompt))).toString("base64") } });
}

function replicate(recorded: MediaRequest): Response {
  if (recorded.path === "/account") return Response.json({ type: "user", username: "gateway" });
  const input = recorded.json!.input as Record<string, unknown>;
  const isImage = /flux|sdxl|image/.test(recorded.path);
  const output = isImage ? ["https://replicate.delivery/one.png"] : ["replicated: ", String(input.prompt)];
  return Response.json({ id: "pred-1", status: "succeeded", output, error: null, metrics: isImage ? {} : { input_token_count: 4, output_token_count: 2 } });
}

function huggingface(recorded: MediaRequest): Response {
  if (recorded.path === "/v1/chat/completions") return Response.json(chat(recorded.json!.model, `hf: ${lastUser(recorded.json!)}`));
  if (recorded.path === "/v1/models") return Response.json({ object: "list", data: [{ id: "meta-llama/Llama-3.1-8B-Instruct" }] });
  if (recorded.path.endsWith("/pipeline/feature-extraction")) return Response.json((recorded.json!.inputs as string[]).map((text) => [text.length, 0.5]));
  if (recorded.bytes) return Response.json({ text: `hf heard ${recorded.bytes.length} bytes` });
  return new Response(drawn(String(recorded.json!.inputs)), { headers: { "content-type": "image/png" } });
}

function elevenlabs(recorded: MediaRequest): Response {
  if (recorded.path === "/models") return Response.json([{ model_id: "eleven_multilingual_v2" }, { model_id: "scribe_v1" }]);
  if (recorded.path === "/speech-to-text") return Response.json({ language_code: "en", text: `scribed ${(recorded.form!.get("file") as File).size} bytes` });
  return new Response(spoken(String(recorded.json!.text)), { headers: { "content-type": "audio/mpeg" } });
}

/** Word overlap with the query: what the mocks' rerankers score a document by. */
const overlap = (query: string, document: string) => {
  const words = query.toLowerCase().split(/\s+/);
  return words.filter((word) => document.toLowerCase().includes(word)).length / words.length;
};
const ranked = (query: string, documents: string[], top: number | undefined) =>
  documents
    .map((document, index) => ({ index, relevance_score: overlap(query, document) }))
    .sort((a, b) => b.relevance_score - a.relevance_score)
    .slice(0, top ?? documents.length);
const vectors = (input: unknown) => (Array.isArray(input) ? input : [input]).map((text, index) => ({ object: "embedding", embedding: [String(text).length, 0.25], index }));

/** Voyage refuses OpenAI's and Cohere's names for its fields (`top_n`, `dimensions`) and counts only total tokens. */
function voyage(recorded: MediaRequest): Response {
  const body = recorded.json!;
  const foreign = ["top_n", "dimensions"].find((field) => field in body);
  if (foreign) return Response.json({ detail: `Unexpected argument: ${foreign}` }, { status: 400 });
  if (recorded.path === "/embeddings") return Response.json({ object: "list", data: vectors(body.input), model: body.model, usage: { total_tokens: 7 } });
  if (recorded.path === "/rerank") return Response.json({ object: "list", data: ranked(String(body.query), body.documents as string[], body.top_k as number | undefined), model: body.model, usage: { total_tokens: 11 } });
  return Response.json({ detail: "Not Found" }, { status: 404 });
}

function jina(recorded: MediaRequest): Response {
  const body = recorded.json!;
  if (recorded.path === "/embeddings") return Response.json({ model: body.model, object: "list", usage: { total_tokens: 5, prompt_tokens: 5 }, data: vectors(body.input) });
  if (recorded.path === "/rerank") return Response.json({ model: body.model, usage: { total_tokens: 9 }, results: ranked(String(body.query), body.documents as string[], body.top_n as number | undefined) });
  return Response.json({ detail: "Not Found" }, { status: 404 });
}

/** Stable Image answers JSON only when asked with `accept: application/json`; a prompt with "forbidden" is filtered. */
function stability(recorded: MediaRequest): Response {
  if (!/^\/stable-image\/generate\/(ultra|core|sd3)$/.test(recorded.path)) return Response.json({ errors: ["not found"] }, { status: 404 });
  if (recorded.headers.get("accept") !== "application/json") return Response.json({ errors: ["accept must be application/json or image/*"] }, { status: 400 });
  const prompt = String(recorded.form!.get("prompt"));
  if (prompt.includes("forbidden")) return Response.json({ image: "", finish_reason: "CONTENT_FILTERED", seed: 1 });
  return Response.json({ image: Buffer.from(drawn(prompt)).toString("base64"), finish_reason: "SUCCESS", seed: 1 });
}

const WATSONX_API_KEY = "ibm-cloud-api-key-0001";

/** The IAM token an IBM Cloud API key is exchanged for. */
export const iamTokenFor = (apiKey: string) => `iam-${Buffer.from(apiKey).toString("hex")}`;

function iam(recorded: MediaRequest): Response {
  const form = new URLSearchParams(new TextDecoder().decode(recorded.bytes));
  if (recorded.path !== "/identity/token" || form.get("grant_type") !== "urn:ibm:params:oauth:grant-type:apikey") return Response.json({ errorCode: "BXNIM0109E" }, { status: 400 });
  return Response.json({ access_token: iamTokenFor(form.get("apikey") ?? ""), token_type: "Bearer", expires_in: 3600 });
}

/** watsonx.ai: a version on every call, a project or space in every body, OpenAI-like chat with `model_id`; streams end without `[DONE]`. */
function watsonx(recorded: MediaRequest): Response {
  const url = new URL(`http://mock${recorded.path}`);
  if (!url.searchParams.get("version")) return Response.json({ errors: [{ code: "missing_version" }] }, { status: 400 });
  if (url.pathname === "/foundation_model_specs") return Response.json({ resources: [{ model_id: "ibm/granite-3-8b-instruct" }] });
  if (!bearer(recorded.headers, iamTokenFor(WATSONX_API_KEY))) return denied("watsonx: bad IAM token");
  const body = recorded.json!;
  if (!body.project_id && !body.space_id) return Response.json({ errors: [{ code: "missing_project_or_space" }] }, { status: 400 });
  if (url.pathname === "/text/embeddings") return Response.json({ model_id: body.model_id, results: (body.inputs as string[]).map((text) => ({ embedding: [text.length, 0.75] })), input_token_count: 6, created_at: "2026-12-07T00:00:00Z" });
  const text = `granite: ${lastUser(body)}`;
  const usage = { prompt_tokens: 4, completion_tokens: 3, total_tokens: 7 };
  if (url.pathname === "/text/chat") return Response.json({ id: "chat-wx", model_id: body.model_id, created: 1, choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }], usage });
  if (url.pathname !== "/text/chat_stream") return Response.json({ errors: [{ code: "not_found" }] }, { status: 404 });
  const chunks = [text.slice(0, 8), text.slice(8)].map((piece, index) => ({ id: "chat-wx", model_id: body.model_id, created: 1, choices: [{ index: 0, delta: { role: "assistant", content: piece }, finish_reason: index === 1 ? "stop" : null }], ...(index === 1 ? { usage } : {}) }));
  const events = chunks.map((chunk, index) => `id: ${index + 1}\nevent: message\ndata: ${JSON.stringify(chunk)}\n\n`).join("");
  return new Response(events, { headers: { "content-type": "text/event-stream" } });
}

const bearer = (h: Headers, key: string) => h.get("authorization") === `Bearer ${key}`;

const ROUTES = [
  { name: "cloudflare", root: "/client/v4", auth: bearer, answer: cloudflare },
  { name: "replicate", root: "/replicate/v1", auth: bearer, answer: replicate },
  { name: "huggingface", root: "/hf", auth: bearer, answer: huggingface },
  { name: "elevenlabs", root: "/elevenlabs/v1", auth: (h: Headers, key: string) => h.get("xi-api-key") === key, answer: elevenlabs },
  { name: "voyage", root: "/voyage/v1", auth: bearer, answer: voyage },
  { name: "jina", root: "/jina/v1", auth: bearer, answer: jina },
  { name: "stability", root: "/stability/v2beta", auth: bearer, answer: stability },
  { name: "iam", root: "/iam", auth: () => true, answer: iam },
  // The model specs are public; watsonx() checks the IAM token on every other call.
  { name: "watsonx", root: "/watsonx/ml/v1", auth: () => true, answer: watsonx },
] as const;

export function startMockMediaApis(): MockMediaApis {
  const mock: MockMediaApis = {
    roots: { cloudflare: "", replicate: "", huggingface: "", elevenlabs: "", voyage: "", jina: "", stability: "", iam: "", watsonx: "" },
    requests: { cloudflare: [], replicate: [], huggingface: [], elevenlabs: [], voyage: [], jina: [], stability: [], iam: [], watsonx: [] },
    keys: { cloudflare: "cf-token-0001", replicate: "r8-token-0001", huggingface: "hf_token_0001", elevenlabs: "xi-key-0001", voyage: "pa-voyage-0001", jina: "jina_key_0001", stability: "sk-stability-0001", iam: "", watsonx: WATSONX_API_KEY },
    stop: () => server.stop(true),
  };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      const route = ROUTES.find((candidate) => url.pathname.startsWith(`${candidate.root}/`));
      if (!route) return new Response("no such provider", { status: 404 });
      const recorded = await record(request, url.pathname.slice(route.root.length) + url.search);
      mock.requests[route.name].push(recorded);
      if (!route.auth(request.headers, mock.keys[route.name])) return denied(`${route.name}: bad credentials`);
      return route.answer(recorded);
    },
  });
  const base = `http://127.0.0.1:${server.port}`;
  mock.roots = Object.fromEntries(ROUTES.map((route) => [route.name, `${base}${route.root}`])) as Record<MediaProvider, string>;
  return mock;
}
