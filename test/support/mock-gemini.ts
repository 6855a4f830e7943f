/**
 * A mock of Google's model APIs speaking their real wire formats: the Gemini API
 * (`/v1beta/models/{model}:method`, key in `x-goog-api-key`), Vertex AI
 * (`/v1/projects/{p}/locations/{r}/publishers/google/models/{m}:method` and Claude models under
 * `publishers/anthropic` via rawPredict, embeddings via `:predict`), and Google's OAuth token endpoint (`/token`) that
 * exchanges a service account's signed JWT for the bearer token Vertex then requires.
 * generateContent answers JSON; streamGenerateContent answers SSE, one GenerateContentResponse per event.
 * Cached contents (mock-gemini-caches.ts) are kept, and a generateContent naming one reads it. Veo makes
 * videos in long-running operations (mock-gemini-videos.ts).
 * Like Gemini 3, a `gemini-3`+ model signs its function calls and refuses a current turn whose
 * function call comes back without a thought signature.
 */
import { scriptedToolCall } from "./scripted-tool-call";
import { jwtVerify } from "jose";
import { type CachedContent, cachedContentCall, cachedTokensFor } from "./mock-gemini-caches";
import { type VideoOperation, vertexVideoCall, videoCall } from "./mock-gemini-videos";
import { mockEmbedding } from "./mock-openai";

export interface RecordedGoogleRequest {
  path: string;
  headers: Headers;
  body: Record<string, unknown>;
}

type Part = { text?: string; thought?: boolean; thoughtSignature?: string; functionCall?: unknown; functionResponse?: { name: string; response: unknown }; inlineData?: { mimeType?: string; data: string } };
type Content = { role?: string; parts: Part[] };

const words = (text: string) => text.split(/\s+/).filter(Boolean);
const countWords = (text: string) => Math.max(1, words(text).length);
const encoder = new TextEncoder();

function googleError(code: number, status: string, message: string): Response {
  return Response.json({ error: { code, message, status } }, { status: code });
}

const textOf = (content: Content | undefined) => (content?.parts ?? []).map((part) => part.text ?? "").join("");

/** The mock's deterministic answer: `echo: <last user text>`, a function call when tools are offered and asked for, or what a tool said. */
function plan(body: Record<string, unknown>) {
  const contents = (body.contents as Content[] | undefined) ?? [];
  const last = contents.at(-1);
  const toolAnswer = last?.parts.find((part) => part.functionResponse)?.functionResponse;
  const text = textOf(last);
  const declarations = (body.tools as Array<{ functionDeclarations?: Array<{ name: string }> }> | undefined)?.flatMap((tool) => tool.functionDeclarations ?? []) ?? [];
  const config = (body.generationConfig ?? {}) as { responseMimeType?: string; maxOutputTokens?: number; thinkingConfig?: { includeThoughts?: boolean } };
  const scripted = toolAnswer ? undefined : scriptedToolCall(text, declarations.map((declaration) => declaration.name));
  const asked = !toolAnswer && declarations.length > 0 && /\btool\b|weather/i.test(text);
  const callTool = scripted ? { name: scripted.name, args: scripted.input } : asked ? { name: declarations[0]!.name, args: { city: "Paris" } } : undefined;
  let reply = toolAnswer ? `the tool said ${JSON.stringify(toolAnswer.response)}` : `echo: ${text}`;
  if (config.responseMimeType === "application/json") reply = JSON.stringify({ answer: reply });
  const truncated = config.maxOutputTokens !== undefined && words(reply).length > config.maxOutputTokens;
  if (truncated) reply = words(reply).slice(0, config.maxOutputTokens).join(" ");
  const thought = config.thinkingConfig?.includeThoughts ? `thinking about ${text}` : undefined;
  const promptTokens = contents.reduce((sum, content) => sum + countWords(textOf(content)), 0);
  return { reply, callTool, thought, truncated, promptTokens };
}

const CALL_SIGNATURE = Buffer.from("signature of the call").toString("base64");
const signsCalls = (model: string) => Number(/gemini-(\d+)/.exec(model)?.[1] ?? 0) >= 3;

/** Gemini 3 refuses the current turn's model steps whose first function call has no thought signature. */
function unsignedCall(body: Record<string, unknown>, model: string): string | undefined {
  if (!signsCalls(model)) return undefined;
  const contents = (body.contents as Content[] | undefined) ?? [];
  const turnStart = contents.findLastIndex((content) => content.role !== "model" && content.parts.some((part) => part.text !== undefined));
  const position = contents.slice(turnStart + 1).findIndex((content) => content.role === "model" && content.parts.find((part) => part.functionCall)?.thoughtSignature === undefined && content.parts.some((part) => part.functionCall));
  if (position < 0) return undefined;
  return `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:tool\` , position ${turnStart + 2 + position}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`;
}

function generateContentResponse(body: Record<string, unknown>, model: string, cachedTokens = 0) {
  const planned = plan(body);
  const parts: Part[] = [];
  if (planned.thought) parts.push({ text: planned.thought, thought: true, thoughtSignature: Buffer.from(`signature of ${planned.thought}`).toString("base64") });
  // Gemini 3 signs each turn's first function call, and wants the signature back.
  if (planned.callTool) parts.push({ functionCall: planned.callTool, ...(signsCalls(model) ? { thoughtSignature: CALL_SIGNATURE } : {}) });
  else parts.push({ text: planned.reply });
  const candidates = planned.callTool ? 6 : countWords(planned.reply);
  const thoughts = planned.thought ? countWords(planned.thought) : 0;
  return {
    candidates: [{ content: { role: "model", parts }, finishReason: planned.truncated ? "MAX_TOKENS" : "STOP", index: 0 }],
    usageMetadata: {
      promptTokenCount: planned.promptTokens + cachedTokens,
      ...(cachedTokens ? { cachedContentTokenCount: cachedTokens } : {}),
      candidatesTokenCount: candidates,
      ...(thoughts ? { thoughtsTokenCount: thoughts } : {}),
      totalTokenCount: planned.promptTokens + cachedTokens + candidates + thoughts,
    },
    modelVersion: model,
    responseId: `resp-${crypto.randomUUID()}`,
  };
}

/** The same answer cut into events as Gemini streams it: thoughts, then the text word by word, the last event with finishReason and full usage. */
function streamEvents(body: Record<string, unknown>, model: string): unknown[] {
  const whole = generateContentResponse(body, model);
  const [candidate] = whole.candidates;
  const head = { modelVersion: whole.modelVersion, responseId: whole.responseId };
  const pieces: Part[] = candidate!.content.parts.flatMap((part) => (part.text !== undefined && !part.thought ? part.text.split(/(?<= )/).map((text) => ({ text })) : [part]));
  return pieces.map((part, index) => {
    const last = index === pieces.length - 1;
    return {
      candidates: [{ content: { role: "model", parts: [part] }, index: 0, ...(last ? { finishReason: candidate!.finishReason } : {}) }],
      usageMetadata: last ? whole.usageMetadata : { promptTokenCount: whole.usageMetadata.promptTokenCount },
      ...head,
    };
  });
}

/** Gemini's stream of `events`; `cut`: only the first, then the connection drops. */
function sse(events: unknown[], cut = false): Response {
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (const event of cut ? events.slice(0, 1) : events) {
        // Gemini separates its events with CRLF pairs.
        controller.enqueue(encoder.encode(`data: ${JSON.stringify(event)}\r\n\r\n`));
        await Bun.sleep(1);
      }
      if (cut) return controller.error(new Error("connection dropped by mock"));
      controller.close();
    },
  });
  return new Response(stream, { headers: { "content-type": "text/event-stream" } });
}

function anthropicMessage(body: Record<string, unknown>, model: string) {
  const messages = (body.messages as Array<{ role: string; content: string | Array<{ type: string; text?: string }> }>) ?? [];
  const last = messages.at(-1)?.content;
  const text = typeof last === "string" ? last : (last ?? []).map((block) => block.text ?? "").join("");
  const reply = `echo: ${text}`;
  return { id: `msg_${crypto.randomUUID().replaceAll("-", "")}`, type: "message", role: "assistant", model, content: [{ type: "text", text: reply }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: countWords(text), output_tokens: countWords(reply) } };
}

function anthropicStream(message: ReturnType<typeof anthropicMessage>): Response {
  const { content, usage, ...rest } = message;
  const events: Array<[string, unknown]> = [
    ["message_start", { type: "message_start", message: { ...rest, content: [], stop_reason: null, usage: { input_tokens: usage.input_tokens, output_tokens: 1 } } }],
    ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }],
    ...content[0]!.text.split(/(?<= )/).map((text): [string, unknown] => ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }]),
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    ["message_delta", { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: usage.output_tokens } }],
    ["message_stop", { type: "message_stop" }],
  ];
  const body = events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join("");
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

export interface MockGemini {
  url: string;
  /** The Gemini API root, as a gemini provider's base_url. */
  geminiBaseUrl: string;
  /** The Vertex API root, as a vertex provider's base_url. */
  vertexBaseUrl: string;
  tokenUri: string;
  /** The Gemini API key the mock accepts. */
  apiKey: string;
  /** Keys of other projects, accepted too: each sees only the videos it made. */
  otherProjectKeys: Set<string>;
  /** Veo's operations, by id. */
  videoOperations: Map<string, VideoOperation>;
  requests: RecordedGoogleRequest[];
  /** The cached contents the Gemini API and Vertex AI keep, by name (`cachedContents/{id}`, `projects/{p}/locations/{l}/cachedContents/{id}`). */
  caches: Map<string, CachedContent>;
  /** Every assertion the token endpoint accepted. */
  assertions: string[];
  /** Lifetime of the access tokens the token endpoint issues. */
  tokenLifetimeSeconds: number;
  /** Bearer tokens Vertex accepts: the ones issued, plus any a test adds. */
  validBearers: Set<string>;
  /** When set, the token endpoint rejects assertions this public key does not verify. */
  serviceAccountKey?: CryptoKey;
  /** When set, the next model call is refused with this Google error (400 INVALID_ARGUMENT when no status is given), and it is cleared. */
  refuseNext?: { message: string; code?: number; status?: string };
  /** When set, the next Gemini API stream sends its first event, then drops the connection, and it is cleared. */
  cutNextStream?: boolean;
  stop(): void;
}

async function issueToken(mock: MockGemini, request: Request): Promise<Response> {
  const form = new URLSearchParams(await request.text());
  if (form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:jwt-bearer") return Response.json({ error: "unsupported_grant_type" }, { status: 400 });
  const assertion = form.get("assertion") ?? "";
  if (mock.serviceAccountKey) {
    const verified = await jwtVerify(assertion, mock.serviceAccountKey, { audience: mock.tokenUri }).catch(() => undefined);
    if (!verified) return Response.json({ error: "invalid_grant", error_description: "Invalid JWT Signature." }, { status: 400 });
  }
  mock.assertions.push(assertion);
  const token = `ya29.mock-${mock.assertions.length}`;
  mock.validBearers.add(token);
  return Response.json({ access_token: token, expires_in: mock.tokenLifetimeSeconds, token_type: "Bearer" });
}

function geminiMethod(method: string, model: string, body: Record<string, unknown>, vertex: boolean, cachedTokens = 0): Response {
  const unsigned = method.endsWith("enerateContent") ? unsignedCall(body, model) : undefined;
  if (unsigned) return googleError(400, "INVALID_ARGUMENT", unsigned);
  switch (method) {
    case "generateContent":
      return Response.json(model.includes("-image") ? imageContentResponse(body) : generateContentResponse(body, model, cachedTokens));
    case "streamGenerateContent":
      return sse(streamEvents(body, model));
    case "embedContent": {
      const content = body.content as Content;
      return Response.json({ embedding: { values: mockEmbedding(textOf(content), Number(body.outputDimensionality ?? 8)) } });
    }
    case "batchEmbedContents": {
      const requests = body.requests as Array<{ model?: string; content: Content; outputDimensionality?: number }>;
      const stray = requests.find((request) => request.model !== `models/${model}`);
      if (stray) return googleError(400, "INVALID_ARGUMENT", `Model name in the request (${stray.model}) does not match models/${model}.`);
      return Response.json({ embeddings: requests.map((request) => ({ values: mockEmbedding(textOf(request.content), request.outputDimensionality ?? 8) })) });
    }
    case "countTokens": {
      if (vertex && body.generateContentRequest) return googleError(400, "INVALID_ARGUMENT", 'Invalid JSON payload received. Unknown name "generateContentRequest".');
      const request = (body.generateContentRequest ?? body) as { contents: Content[] };
      return Response.json({ totalTokens: request.contents.reduce((sum, content) => sum + countWords(textOf(content)), 0) });
    }
    case "predict": {
      // Imagen: one image a sample, its bytes naming the prompt, index and aspect ratio so tests can check them.
      const { instances, parameters } = body as { instances?: Array<{ prompt?: string }>; parameters?: { sampleCount?: number; aspectRatio?: string } };
      if (!model.startsWith("imagen")) return googleError(400, "INVALID_ARGUMENT", `${model} does not generate images`);
      const prompt = instances?.[0]?.prompt ?? "";
      const predictions = Array.from({ length: parameters?.sampleCount ?? 1 }, (_, index) => ({ bytesBase64Encoded: Buffer.from(`png:${prompt}:${index}:${parameters?.aspectRatio ?? "1:1"}`).toString("base64"), mimeType: "image/png" }));
      return Response.json({ predictions });
    }
    default:
      return googleError(404, "NOT_FOUND", `method ${method} not found`);
  }
}

/**
 * A Gemini image model's answer: one image whose bytes name the prompt and aspect ratio (and, for
 * an edit, the images it was given), billed as Gemini bills an image (1,290 tokens).
 */
function imageContentResponse(body: Record<string, unknown>) {
  const config = (body.generationConfig ?? {}) as { responseModalities?: string[]; imageConfig?: { aspectRatio?: string } };
  const last = (body.contents as Content[] | undefined)?.at(-1);
  const prompt = textOf(last);
  const given = (last?.parts ?? []).flatMap((part) => (part.inlineData ? [Buffer.from(part.inlineData.data, "base64").toString()] : []));
  const made = `png:${prompt}:${config.imageConfig?.aspectRatio ?? "1:1"}${given.length > 0 ? `:edited ${given.join("+")}` : ""}`;
  const parts: Array<Record<string, unknown>> = [{ text: "Here is your image." }, { inlineData: { mimeType: "image/png", data: Buffer.from(made).toString("base64") } }];
  const promptTokens = countWords(prompt);
  return {
    candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: promptTokens, candidatesTokenCount: 1290, totalTokenCount: promptTokens + 1290, candidatesTokensDetails: [{ modality: "IMAGE", tokenCount: 1290 }] },
  };
}

/** Vertex's text-embedding `:predict`: one instance per text, dimensions as a parameter, a token count per prediction. */
function vertexPredict(body: Record<string, unknown>): Response {
  const instances = body.instances as Array<{ content?: unknown }> | undefined;
  if (!Array.isArray(instances) || instances.some((instance) => typeof instance.content !== "string")) {
    return googleError(400, "INVALID_ARGUMENT", "instances must be a list of {content: string}");
  }
  const dimensions = Number((body.parameters as { outputDimensionality?: number } | undefined)?.outputDimensionality ?? 8);
  const predictions = instances.map((instance) => {
    const text = instance.content as string;
    return { embeddings: { values: mockEmbedding(text, dimensions), statistics: { token_count: countWords(text), truncated: false } } };
  });
  return Response.json({ predictions, metadata: { billableCharacterCount: instances.reduce((sum, instance) => sum + (instance.content as string).length, 0) } });
}

function anthropicOnVertex(method: string, model: string, body: Record<string, unknown>): Response {
  if (model === "count-tokens") {
    if (typeof body.model !== "string") return Response.json({ type: "error", error: { type: "invalid_request_error", message: "model: Field required" } }, { status: 400 });
    const messages = (body.messages as Array<{ content: unknown }>) ?? [];
    return Response.json({ input_tokens: messages.reduce((sum, message) => sum + countWords(typeof message.content === "string" ? message.content : JSON.stringify(message.content)), 0) });
  }
  if (body.anthropic_version !== "vertex-2023-10-16") return googleError(400, "INVALID_ARGUMENT", "anthropic_version: vertex-2023-10-16 is required");
  if ("model" in body) return Response.json({ type: "error", error: { type: "invalid_request_error", message: "model: Extra inputs are not permitted" } }, { status: 400 });
  const message = anthropicMessage(body, model);
  if (method === "streamRawPredict") return anthropicStream(message);
  if (method === "rawPredict") return Response.json(message);
  return googleError(404, "NOT_FOUND", `method ${method} not found`);
}

const GEMINI_PATH = /^\/v1beta\/models\/([^:]+):(\w+)$/;
const VERTEX_PATH = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(google|anthropic)\/models\/([^:]+):(\w+)$/;
const VERTEX_CACHE_PATH = /^\/v1\/projects\/[^/]+\/locations\/[^/]+\/cachedContents(\/|$)/;

export function startMockGemini(): MockGemini {
  const mock: MockGemini = {
    url: "",
    geminiBaseUrl: "",
    vertexBaseUrl: "",
    tokenUri: "",
    apiKey: "gemini-upstream-key-0001",
    otherProjectKeys: new Set(),
    videoOperations: new Map(),
    requests: [],
    caches: new Map(),
    assertions: [],
    tokenLifetimeSeconds: 3600,
    validBearers: new Set(),
    stop: () => server.stop(true),
  };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      if (url.pathname === "/token" && request.method === "POST") return issueToken(mock, request);
      const body = (await request.json().catch(() => ({}))) as Record<string, unknown>;
      mock.requests.push({ path: url.pathname + url.search, headers: request.headers, body });
      const key = request.headers.get("x-goog-api-key") ?? "";
      if (mock.otherProjectKeys.has(key) || key === mock.apiKey) {
        const video = videoCall(mock.videoOperations, { method: request.method, url, key, body });
        if (video) return video;
      }
      const refusal = mock.refuseNext;
      if (refusal && (GEMINI_PATH.test(url.pathname) || VERTEX_PATH.test(url.pathname))) {
        mock.refuseNext = undefined;
        return googleError(refusal.code ?? 400, refusal.status ?? "INVALID_ARGUMENT", refusal.message);
      }
      const gemini = GEMINI_PATH.exec(url.pathname);
      const onCache = url.pathname.startsWith("/v1beta/cachedContents");
      if ((gemini || onCache) && request.headers.get("x-goog-api-key") !== mock.apiKey) return googleError(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.");
      if (onCache) return cachedContentCall(mock.caches, request.method, url.pathname, body) ?? googleError(404, "NOT_FOUND", `mock has no route ${url.pathname}`);
      if (gemini) {
        if (gemini[2] === "streamGenerateContent" && url.searchParams.get("alt") !== "sse") return googleError(400, "INVALID_ARGUMENT", "the mock streams only with alt=sse");
        const cached = cachedTokensFor(mock.caches, body, gemini[1]!);
        if (cached instanceof Response) return cached;
        if (mock.cutNextStream && gemini[2] === "streamGenerateContent") {
          mock.cutNextStream = undefined;
          return sse(streamEvents(body, gemini[1]!), true);
        }
        return geminiMethod(gemini[2]!, gemini[1]!, body, false, cached);
      }
      const vertex = VERTEX_PATH.exec(url.pathname);
      const onVertexCache = VERTEX_CACHE_PATH.test(url.pathname);
      if (vertex || onVertexCache) {
        const bearer = request.headers.get("authorization")?.replace(/^Bearer /, "") ?? "";
        if (!mock.validBearers.has(bearer)) return googleError(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.");
        if (!vertex) return cachedContentCall(mock.caches, request.method, url.pathname, body) ?? googleError(404, "NOT_FOUND", `mock has no route ${url.pathname}`);
        const [, project, location, publisher, model, method] = vertex;
        if (publisher === "anthropic") return anthropicOnVertex(method!, model!, body);
        const resource = `projects/${project}/locations/${location}/publishers/google/models/${model}`;
        const video = vertexVideoCall(mock.videoOperations, { resource, model: model!, method: method!, bearer, body });
        if (video) return video;
        const cached = cachedTokensFor(mock.caches, body, model!, `projects/${project}/locations/${location}/`);
        if (cached instanceof Response) return cached;
        return method === "predict" && !model!.startsWith("imagen") ? vertexPredict(body) : geminiMethod(method!, model!, body, true, cached);
      }
      return googleError(404, "NOT_FOUND", `mock has no route ${url.pathname}`);
    },
  });
  mock.url = `http://127.0.0.1:${server.port}`;
  mock.geminiBaseUrl = `${mock.url}/v1beta`;
  mock.vertexBaseUrl = `${mock.url}/v1`;
  mock.tokenUri = `${mock.url}/token`;
  return mock;
}
