/**
 * Mocks of the providers with wire formats of their own, each under its own root on one server,
 * each answering in its real format: Cloudflare Workers AI (`/client/v4/accounts/{id}/ai/...`),
 * Replicate predictions (`/replicate/v1/...`), Hugging Face's router and HF Inference
 * pipelines (`/hf/...`) and ElevenLabs (`/elevenlabs/v1/...`). Each refuses a request without
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

export interface MockMediaApis {
  roots: { cloudflare: string; replicate: string; huggingface: string; elevenlabs: string };
  requests: Record<"cloudflare" | "replicate" | "huggingface" | "elevenlabs", MediaRequest[]>;
  keys: { cloudflare: string; replicate: string; huggingface: string; elevenlabs: string };
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

const ROUTES = [
  { name: "cloudflare", root: "/client/v4", auth: (h: Headers, key: string) => h.get("authorization") === `Bearer ${key}`, answer: cloudflare },
  { name: "replicate", root: "/replicate/v1", auth: (h: Headers, key: string) => h.get("authorization") === `Bearer ${key}`, answer: replicate },
  { name: "huggingface", root: "/hf", auth: (h: Headers, key: string) => h.get("authorization") === `Bearer ${key}`, answer: huggingface },
  { name: "elevenlabs", root: "/elevenlabs/v1", auth: (h: Headers, key: string) => h.get("xi-api-key") === key, answer: elevenlabs },
] as const;

export function startMockMediaApis(): MockMediaApis {
  const mock: MockMediaApis = {
    roots: { cloudflare: "", replicate: "", huggingface: "", elevenlabs: "" },
    requests: { cloudflare: [], replicate: [], huggingface: [], elevenlabs: [] },
    keys: { cloudflare: "cf-token-0001", replicate: "r8-token-0001", huggingface: "hf_token_0001", elevenlabs: "xi-key-0001" },
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
  mock.roots = { cloudflare: `${base}/client/v4`, replicate: `${base}/replicate/v1`, huggingface: `${base}/hf`, elevenlabs: `${base}/elevenlabs/v1` };
  return mock;
}
