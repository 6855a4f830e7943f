/**
 * A mock upstream speaking OpenAI's wire format: chat completions (JSON and SSE, tool calls,
 * usage chunk), completions, embeddings, responses (JSON and SSE, kept and read back),
 * conversations, models; and the failure modes a gateway must survive: error statuses, 429 with
 * retry-after, slow and dropped replies.
 */

import { scriptedToolCall } from "./scripted-tool-call";
import { type Container, containerCall } from "./mock-openai-containers";
import { type Eval, evalCall } from "./mock-openai-evals";
import { type Video, videoCall } from "./mock-openai-videos";
import { type Conversation, conversationCall } from "./mock-openai-conversations";
import { keptIfAsked, type StoredCompletion, storedCompletionCall } from "./mock-openai-stored-completions";

export interface RecordedRequest {
  path: string;
  headers: Headers;
  body: Record<string, unknown>;
  /** performance.now() when the request reached the mock (optional for mocks that share this type). */
  receivedAt?: number;
  /** Aborts when the caller (the gateway) gives up on the request (optional, as above). */
  signal?: AbortSignal;
}

/** A streamed reply the test lets out event by event, and that reports its own cancellation. */
export interface HeldStream {
  /** Resolves with the request once the streamed call reaches the mock. */
  readonly arrived: Promise<RecordedRequest>;
  /** Lets `count` more SSE events through (a final `[DONE]` counts as one). */
  release(count?: number): void;
  /** Resolves when the gateway cancels the stream or aborts the request; stays pending while it reads. */
  readonly cancelled: Promise<void>;
}

interface StreamGate {
  /** Waits for the next permit; false once the stream was cancelled. */
  next(): Promise<boolean>;
  cancel(): void;
  arrive(request: RecordedRequest): void;
}

function createHeldStream(): { held: HeldStream; gate: StreamGate } {
  let permits = 0;
  let isCancelled = false;
  let wake: (() => void) | undefined;
  const arrival = Promise.withResolvers<RecordedRequest>();
  const cancellation = Promise.withResolvers<void>();
  const held: HeldStream = {
    arrived: arrival.promise,
    cancelled: cancellation.promise,
    release(count = 1) {
      permits += count;
      wake?.();
    },
  };
  const gate: StreamGate = {
    async next() {
      while (permits === 0 && !isCancelled) await new Promise<void>((resolve) => (wake = resolve));
      if (isCancelled) return false;
      permits--;
      return true;
    },
    cancel() {
      isCancelled = true;
      cancellation.resolve();
      wake?.();
    },
    arrive: arrival.resolve,
  };
  return { held, gate };
}

export type Fault =
  | { kind: "status"; status: number; message?: string; headers?: Record<string, string> }
  | { kind: "drop" }
  | { kind: "delay"; ms: number }
  /** Sends part of a stream, then cuts the connection. */
  | { kind: "drop-mid-stream" }
  /** Sends part of a stream, then an error event (`data: {"error": ...}`), as OpenAI-compatible servers report a failure midway. */
  | { kind: "error-mid-stream"; message: string }
  /** Answers 200 with this body as is (an HTML page from a proxy in front of the provider). */
  | { kind: "body"; body: string; contentType: string }
  /** Streams these events as they are, then `[DONE]`: another server's dialect of the chunk format. */
  | { kind: "stream-events"; events: unknown[] };

/** How a mock stream ends: as it should, cut off halfway, or with an error event halfway. */
type StreamEnd = { kind: "complete" } | { kind: "drop" } | { kind: "error"; message: string };

type Message = { role: string; content?: unknown };

const encoder = new TextEncoder();

function lastUserText(messages: Message[] | undefined): string {
  const last = [...(messages ?? [])].reverse().find((message) => message.role === "user");
  if (!last) return "";
  if (typeof last.content === "string") return last.content;
  if (Array.isArray(last.content)) return last.content.map((part: { text?: string }) => part.text ?? "").join("");
  return "";
}

/** A tool call the user's text scripts (see scripted-tool-call.ts) while no tool has answered, then what the tool said. */
function scriptedReply(messages: Message[] | undefined, text: string, offered: string[]) {
  const call = scriptedToolCall(text, offered);
  const turn = messages?.findLast((message) => message.role !== "system" && message.role !== "developer");
  if (!call || !turn) return undefined;
  if (turn.role === "tool") return { text: `tool said: ${lastUserText([{ ...turn, role: "user" }])}`, toolCall: undefined };
  return { text: "", toolCall: { id: `call_mock_${messages!.length}`, name: call.name, arguments: JSON.stringify(call.input) } };
}

/** Deterministic reply: the mock answers `echo: <last user text>`, or calls the first tool when tools are offered and the text asks for one. */
export function plannedReply(body: Record<string, unknown>) {
  const text = lastUserText(body.messages as Message[]);
  const tools = body.tools as Array<{ function: { name: string } }> | undefined;
  const scripted = scriptedReply(body.messages as Message[], text, tools?.map((tool) => tool.function?.name) ?? []);
  if (scripted) return scripted;
  const toolName = tools?.[0]?.function.name;
  const wantsTool = Boolean(toolName) && /\btool\b|weather/i.test(text);
  return { text: `echo: ${text}`, toolCall: wantsTool ? { id: "call_mock_1", name: toolName!, arguments: JSON.stringify({ city: "Paris" }) } : undefined };
}

export const countTokens = (text: string) => Math.max(1, text.split(/\s+/).filter(Boolean).length);

function chatCompletion(body: Record<string, unknown>, thinking = false) {
  const reply = plannedReply(body);
  const reasoning = thinking ? { reasoning_content: `thinking about: ${lastUserText(body.messages as Message[])}` } : {};
  const promptTokens = countTokens(lastUserText(body.messages as Message[]));
  const completionTokens = reply.toolCall ? 10 : countTokens(reply.text);
  return {
    id: `chatcmpl-${crypto.randomUUID()}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    choices: [
      {
        index: 0,
        message: reply.toolCall
          ? { role: "assistant", content: null, ...reasoning, tool_calls: [{ id: reply.toolCall.id, type: "function", function: { name: reply.toolCall.name, arguments: reply.toolCall.arguments } }] }
          : { role: "assistant", content: body.response_format ? JSON.stringify({ answer: reply.text }) : reply.text, ...reasoning },
        finish_reason: reply.toolCall ? "tool_calls" : "stop",
      },
    ],
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
  };
}

/**
 * How a server reports a stream's usage: as OpenAI does when `include_usage` asks (every chunk
 * carries `usage: null`, then one chunk with no choices carries the usage), never, or always on
 * the last chunk beside its choices (Mistral).
 */
export type StreamUsageDialect = "when-asked" | "never" | "in-last-chunk";

function chatChunks(body: Record<string, unknown>, dialect: StreamUsageDialect, thinking = false): unknown[] {
  const full = chatCompletion(body, thinking);
  const choice = full.choices[0]!;
  const withUsage = dialect === "when-asked" && (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
  const base = { id: full.id, object: "chat.completion.chunk", created: full.created, model: full.model, ...(withUsage ? { usage: null } : {}) };
  const chunks: unknown[] = [{ ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] }];
  if ("reasoning_content" in choice.message) chunks.push({ ...base, choices: [{ index: 0, delta: { reasoning_content: choice.message.reasoning_content }, finish_reason: null }] });
  if ("tool_calls" in choice.message && choice.message.tool_calls) {
    const call = choice.message.tool_calls[0]!;
    chunks.push({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }] }, finish_reason: null }] });
    chunks.push({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: call.function.arguments } }] }, finish_reason: null }] });
  } else {
    for (const word of String(choice.message.content).split(/(?<= )/)) chunks.push({ ...base, choices: [{ index: 0, delta: { content: word }, finish_reason: null }] });
  }
  chunks.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: choice.finish_reason }], ...(dialect === "in-last-chunk" ? { usage: full.usage } : {}) });
  if (withUsage) chunks.push({ ...base, choices: [], usage: full.usage });
  return chunks;
}

function textCompletion(body: Record<string, unknown>) {
  const text = `echo: ${String(body.prompt)}`;
  return { id: "cmpl-1", object: "text_completion", created: 0, model: body.model, choices: [{ index: 0, text, logprobs: null, finish_reason: "stop" }], usage: { prompt_tokens: 1, completion_tokens: countTokens(text), total_tokens: 1 + countTokens(text) } };
}

/** A text completion streamed a word at a time, reporting usage as chat streams do (see StreamUsageDialect). */
function completionChunks(body: Record<string, unknown>, dialect: StreamUsageDialect): unknown[] {
  const full = textCompletion(body);
  const withUsage = dialect === "when-asked" && (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
  const base = { id: full.id, object: "text_completion", created: full.created, model: full.model, ...(withUsage ? { usage: null } : {}) };
  const words = full.choices[0]!.text.split(/(?<= )/);
  const chunks: unknown[] = words.map((text, index) => ({ ...base, choices: [{ index: 0, text, logprobs: null, finish_reason: index === words.length - 1 ? "stop" : null }] }));
  if (withUsage) chunks.push({ ...base, choices: [], usage: full.usage });
  return chunks;
}

type InputItem = { type?: string; role?: string; output?: unknown };

/** A tool call the user's text scripts (see scripted-tool-call.ts) while no tool has answered since, then what the tools said. */
function scriptedResponse(body: Record<string, unknown>, text: string, offered: string[]) {
  const call = scriptedToolCall(text, offered);
  if (!call) return undefined;
  const items = Array.isArray(body.input) ? (body.input as InputItem[]) : [];
  const since = items.slice(items.findLastIndex((item) => (item.type ?? "message") === "message" && item.role === "user") + 1);
  const outputs = since.flatMap((item) => (item.type === "function_call_output" ? [typeof item.output === "string" ? item.output : JSON.stringify(item.output)] : []));
  if (outputs.length > 0) return { text: `tool said: ${outputs.join(", ")}` };
  return { call: { name: call.name, call_id: `call_mock_${items.length}`, arguments: JSON.stringify(call.input) } };
}

/** The Responses API's answer: `echo: <input>`, or a call of the first function offered when the input asks for a tool, or the call the input scripts. */
function responsesObject(body: Record<string, unknown>) {
  const input = typeof body.input === "string" ? body.input : lastUserText(body.input as Message[]);
  const tools = (body.tools as Array<{ type: string; name?: string }> | undefined) ?? [];
  const tool = tools.find((offered) => offered.type === "function");
  const scripted = scriptedResponse(body, input, tools.flatMap((offered) => (offered.type === "function" && offered.name ? [offered.name] : [])));
  const asked = tool?.name && /\btool\b|weather/i.test(input) ? { name: tool.name, call_id: "call_mock_1", arguments: JSON.stringify({ city: "Paris" }) } : undefined;
  const planned = scripted ? scripted.call : asked;
  const call = planned && { type: "function_call", id: "fc_1", status: "completed", ...planned };
  const text = scripted?.text ?? `echo: ${input}`;
  const outputTokens = call ? 10 : countTokens(text);
  return {
    // OpenAI's ids are 48 hex digits after `resp_`, longer than the gateway's own.
    id: `resp_${crypto.randomUUID().replaceAll("-", "")}${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status: "completed",
    model: body.model,
    output: call ? [call] : [{ type: "message", id: "msg_1", status: "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] }],
    usage: {
      input_tokens: countTokens(input),
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: outputTokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: countTokens(input) + outputTokens,
    },
  };
}

/** Keeps the response unless `store: false`; a background one is answered queued, and finishes as it is polled. */
function keptResponse(kept: Map<string, KeptResponse>, body: Record<string, unknown>, done: ReturnType<typeof responsesObject>, project: string) {
  const response = body.background === true ? { ...done, status: "queued", output: [], usage: null, background: true, finished: done } : done;
  const input = typeof body.input === "string" ? [{ role: "user", content: body.input }] : ((body.input as unknown[]) ?? []);
  if (body.store !== false) kept.set(done.id, { response, input, project });
  const { finished: _, ...shown } = response as Record<string, unknown>;
  return shown;
}

function responsesEvents(done: ReturnType<typeof responsesObject>): Array<{ event: string; data: unknown }> {
  const inProgress = { ...done, status: "in_progress", output: [] };
  const events: Array<{ event: string; data: unknown }> = [{ event: "response.created", data: { type: "response.created", sequence_number: 0, response: inProgress } }];
  const push = (type: string, data: Record<string, unknown>) => events.push({ event: type, data: { type, sequence_number: events.length, ...data } });
  const [item] = done.output;
  if (item!.type === "function_call") {
    push("response.output_item.added", { output_index: 0, item: { ...item, arguments: "", status: "in_progress" } });
    push("response.function_call_arguments.delta", { output_index: 0, item_id: "fc_1", delta: (item as { arguments: string }).arguments });
    push("response.output_item.done", { output_index: 0, item });
  } else {
    push("response.output_item.added", { output_index: 0, item: { type: "message", id: "msg_1", status: "in_progress", role: "assistant", content: [] } });
    push("response.content_part.added", { output_index: 0, item_id: "msg_1", content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
    const text = (item as { content: Array<{ text: string }> }).content[0]!.text;
    for (const word of text.split(/(?<= )/)) push("response.output_text.delta", { output_index: 0, item_id: "msg_1", content_index: 0, delta: word });
    push("response.output_text.done", { output_index: 0, item_id: "msg_1", content_index: 0, text });
    push("response.content_part.done", { output_index: 0, item_id: "msg_1", content_index: 0, part: { type: "output_text", text, annotations: [] } });
    push("response.output_item.done", { output_index: 0, item });
  }
  push("response.completed", { response: done });
  return events;
}

/** A deterministic embedding: the same text always gives the same unit vector. */
export function mockEmbedding(text: string, dimensions = 8): number[] {
  const vector = Array.from({ length: dimensions }, (_, index) => {
    let hash = 2166136261 ^ index;
    for (const char of text) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619);
    return ((hash >>> 0) % 1000) / 1000 - 0.5;
  });
  const norm = Math.hypot(...vector) || 1;
  return vector.map((value) => value / norm);
}

function embeddings(body: Record<string, unknown>) {
  const inputs = Array.isArray(body.input) ? (body.input as string[]) : [String(body.input)];
  return {
    object: "list",
    model: body.model,
    data: inputs.map((input, index) => {
      const vector = mockEmbedding(String(input), Number(body.dimensions ?? 8));
      // The SDK asks for base64 (little-endian float32) by default, as the real API allows.
      const embedding = body.encoding_format === "base64" ? Buffer.from(new Float32Array(vector).buffer).toString("base64") : vector;
      return { object: "embedding", index, embedding };
    }),
    usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
  };
}

function heldSse(events: Array<{ event?: string; data: unknown }>, done: boolean, gate: StreamGate): ReadableStream<Uint8Array> {
  const frames = events.map((event) => `${event.event ? `event: ${event.event}\n` : ""}data: ${JSON.stringify(event.data)}\n\n`);
  if (done) frames.push("data: [DONE]\n\n");
  return new ReadableStream({
    async pull(controller) {
      const frame = frames.shift();
      if (frame === undefined) return controller.close();
      if (await gate.next()) controller.enqueue(encoder.encode(frame));
    },
    cancel: () => gate.cancel(),
  });
}

/** An error event in two pieces cut halfway through its message, sent apart: a reader of the stream may get any word in two chunks. */
export function splitInMessage(frame: string, message: string): [string, string] {
  const cut = Math.max(1, frame.indexOf(message) + Math.floor(message.length / 2));
  return [frame.slice(0, cut), frame.slice(cut)];
}

function sse(events: Array<{ event?: string; data: unknown }>, done: boolean, end: StreamEnd = { kind: "complete" }, gate?: StreamGate): ReadableStream<Uint8Array> {
  if (gate) return heldSse(events, done, gate);
  return new ReadableStream({
    async pull(controller) {
      const limit = end.kind === "complete" ? events.length : Math.max(1, Math.floor(events.length / 2));
      for (const [index, event] of events.entries()) {
        if (index >= limit && end.kind === "error") {
          for (const piece of splitInMessage(`data: ${JSON.stringify({ error: { message: end.message, type: "server_error", param: null, code: null } })}\n\n`, end.message)) {
            controller.enqueue(encoder.encode(piece));
            await Bun.sleep(5);
          }
          controller.close();
          return;
        }
        if (index >= limit) {
          controller.error(new Error("connection dropped by mock"));
          return;
        }
        controller.enqueue(encoder.encode(`${event.event ? `event: ${event.event}\n` : ""}data: ${JSON.stringify(event.data)}\n\n`));
        await Bun.sleep(1);
      }
      if (done) controller.enqueue(encoder.encode("data: [DONE]\n\n"));
      controller.close();
    },
  });
}

const extraForbidden = (field: string) => ({
  object: "error",
  message: { detail: [{ type: "extra_forbidden", loc: ["body", field], msg: "Extra inputs are not permitted" }] },
  type: "invalid_request_error",
  param: null,
  code: null,
});

const callIdsOf = (body: Record<string, unknown>): string[] =>
  ((body.messages ?? []) as Array<{ tool_call_id?: string; tool_calls?: Array<{ id: string }> }>).flatMap((message) => [...(message.tool_calls ?? []).map((call) => call.id), ...(message.tool_call_id ? [message.tool_call_id] : [])]);

const errorBody = (status: number, message: string) => ({ error: { message, type: status === 429 ? "rate_limit_exceeded" : "server_error", code: String(status) } });

/** A reasoning item whose encrypted_content this server did not write (it writes none): OpenAI cannot decrypt it and refuses. */
const foreignReasoning = (body: Record<string, unknown>) =>
  (Array.isArray(body.input) ? (body.input as Array<{ type?: string; id?: string; encrypted_content?: unknown }>) : []).find((item) => item.type === "reasoning" && item.encrypted_content !== undefined);

const undecryptable = (item: { id?: string }) => ({ error: { message: `The encrypted content for item ${item.id} could not be verified.`, type: "invalid_request_error", param: null, code: "invalid_encrypted_content" } });

const modelNotFound = (model: string) => ({ error: { message: `The model \`${model}\` does not exist or you do not have access to it.`, type: "invalid_request_error", param: null, code: "model_not_found" } });

/** A response the mock keeps, as OpenAI does unless `store: false`; a background one advances a status each time it is read. */
interface KeptResponse {
  response: Record<string, unknown>;
  input: unknown[];
  /** The bearer that created it: with `keysAreProjects`, only that key sees it. */
  project: string;
}

const responseNotFound = (id: string) => Response.json({ error: { message: `Response with id '${id}' not found.`, type: "invalid_request_error", param: null, code: null } }, { status: 404 });

/** `GET`, `DELETE /responses/{id}`, its `input_items` and `cancel`, answered from what the mock kept. */
function keptResponseCall(kept: Map<string, KeptResponse>, method: string, id: string, action: string | undefined, project: string | undefined): Response {
  const entry = kept.get(id);
  if (!entry || (project !== undefined && entry.project !== project)) return responseNotFound(id);
  const { response } = entry;
  if (method === "DELETE") {
    kept.delete(id);
    return Response.json({ id, object: "response", deleted: true });
  }
  if (action === "input_items") {
    const data = entry.input.map((item, index) => ({ id: `msg_in_${index}`, type: "message", ...(item as object) })).reverse();
    return Response.json({ object: "list", data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: false });
  }
  if (action === "cancel") {
    if (!response.background) return Response.json(errorBody(400, "Cannot cancel a synchronous response."), { status: 400 });
    if (response.status !== "completed") entry.response = { ...response, status: "cancelled", output: [] };
  } else if (response.status === "queued") {
    entry.response = { ...response, status: "in_progress" };
  } else if (response.status === "in_progress") {
    entry.response = { ...(response.finished as object), background: true };
  }
  const { finished: _, ...shown } = entry.response;
  return Response.json(shown);
}

/** An assistant turn that called tools without its reasoning: DeepSeek refuses the request. */
const reasoningNotPassedBack = (body: Record<string, unknown>) =>
  ((body.messages as Array<{ role: string; tool_calls?: unknown[]; reasoning_content?: unknown }> | undefined) ?? []).some(
    (message) => message.role === "assistant" && (message.tool_calls?.length ?? 0) > 0 && typeof message.reasoning_content !== "string",
  );

export interface MockOpenAI {
  url: string;
  /** The API root to configure as a provider's base_url. */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Faults applied to the next requests, one each, in order. */
  faults: Fault[];
  /** Called with every request; lets a test hold one until it decides. */
  onRequest?: (request: RecordedRequest) => Promise<void> | void;
  /** The next streamed reply waits for the test to release each event. */
  holdNextStream(): HeldStream;
  /** How streams report usage (see StreamUsageDialect); "when-asked" by default. */
  streamUsage: StreamUsageDialect;
  /** Body fields the server refuses with Mistral's 422 (`extra_forbidden`), as strict servers do. */
  refusedFields: string[];
  /**
   * DeepSeek's thinking mode: replies carry `reasoning_content`, and an earlier assistant turn
   * that called tools must bring its `reasoning_content` back, or the request is a 400.
   */
  thinking?: boolean;
  /** Set: tool call ids must match it, or the request is refused as Mistral refuses them. */
  toolCallIds?: RegExp;
  /** Paths under /v1 the server does not have (`/responses` for an older vLLM): 404 as FastAPI answers it. */
  missingRoutes: string[];
  /** How a missing route is answered: FastAPI's JSON (vLLM), or Go's plain `404 page not found` (Ollama, llama.cpp's router). */
  missingRouteStyle?: "fastapi" | "go";
  /** Models the server does not serve: 404 `model_not_found` on every route, as OpenAI answers. */
  missingModels: string[];
  /** The responses it keeps, by id. */
  kept: Map<string, KeptResponse>;
  /** Each key is a project of its own: a response one key created is not found with another, as on OpenAI. */
  keysAreProjects: boolean;
  /** The conversations it keeps, by id. */
  conversations: Map<string, Conversation>;
  /** The containers it keeps, by id. */
  containers: Map<string, Container>;
  /** The videos it generates, by id. */
  videos: Map<string, Video>;
  /** The evals it keeps, with their runs, by id. */
  evals: Map<string, Eval>;
  /** The chat completions it was asked to store, by id. */
  storedCompletions: Map<string, StoredCompletion>;
  stop(): void;
}

/** Listens on 127.0.0.1 and a free port unless told an address (`::1`) or a port. */
export function startMockOpenAI({ hostname = "127.0.0.1", port = 0 }: { hostname?: string; port?: number } = {}): MockOpenAI {
  const mock: MockOpenAI = {
    url: "",
    baseUrl: "",
    requests: [],
    faults: [],
    streamUsage: "when-asked",
    refusedFields: [],
    missingRoutes: [],
    missingModels: [],
    kept: new Map(),
    keysAreProjects: false,
    conversations: new Map(),
    containers: new Map(),
    videos: new Map(),
    evals: new Map(),
    storedCompletions: new Map(),
    holdNextStream() {
      const { held, gate } = createHeldStream();
      gates.push(gate);
      return held;
    },
    stop: () => server.stop(true),
  };
  const gates: StreamGate[] = [];
  const server = Bun.serve({
    port,
    hostname,
    idleTimeout: 0,
    async fetch(request) {
      const url = new URL(request.url);
      if (request.method === "GET" && url.pathname.endsWith("/models")) {
        return Response.json({ object: "list", data: [{ id: "gpt-4o-mini", object: "model", created: 0, owned_by: "mock" }] });
      }
      // Container files and videos may come as multipart forms: their handlers read their own bodies.
      const apiPath = url.pathname.replace(/^.*\/v1/, "");
      const onContainer = (await containerCall(mock.containers, request, apiPath)) ?? (await videoCall(mock.videos, request, url, apiPath));
      if (onContainer) {
        mock.requests.push({ path: url.pathname + url.search, headers: request.headers, body: {}, receivedAt: performance.now(), signal: request.signal });
        return onContainer;
      }
      const body = (await request.json().catch(() => ({}))) as Record<string, unknown>;
      const recorded = { path: url.pathname + url.search, headers: request.headers, body, receivedAt: performance.now(), signal: request.signal };
      mock.requests.push(recorded);
      await mock.onRequest?.(recorded);
      const path = url.pathname.replace(/^.*\/v1/, "").replace(/^\/openai\/deployments\/[^/]+/, "");
      if (mock.missingRoutes.includes(path)) return mock.missingRouteStyle === "go" ? new Response("404 page not found", { status: 404, headers: { "content-type": "text/plain; charset=utf-8" } }) : Response.json({ detail: "Not Found" }, { status: 404 });
      if (mock.missingModels.includes(String(body.model))) return Response.json(modelNotFound(String(body.model)), { status: 404 });
      const refused = mock.refusedFields.find((field) => field in body);
      if (refused) return Response.json(extraForbidden(refused), { status: 422 });
      if (mock.thinking && reasoningNotPassedBack(body)) return Response.json({ error: { message: "The `reasoning_content` in the thinking mode must be passed back to the API.", type: "invalid_request_error", param: null, code: "invalid_request_error" } }, { status: 400 });
      const badId = mock.toolCallIds && callIdsOf(body).find((id) => !mock.toolCallIds!.test(id));
      if (badId) return Response.json({ object: "error", message: `Tool call id was ${badId} but must be a-z, A-Z, 0-9, with a length of 9.`, type: "invalid_request_message_order", code: 3230 }, { status: 400 });
      const onKept = /^\/responses\/(resp_\w+)(?:\/(input_items|cancel))?$/.exec(path);
      const bearer = request.headers.get("authorization") ?? "";
      const project = mock.keysAreProjects ? bearer : undefined;
      if (onKept) return keptResponseCall(mock.kept, request.method, onKept[1]!, onKept[2], project);
      const previous = typeof body.previous_response_id === "string" ? mock.kept.get(body.previous_response_id) : undefined;
      if (project !== undefined && typeof body.previous_response_id === "string" && previous?.project !== project) {
        return Response.json(errorBody(404, `Previous response with id '${body.previous_response_id}' not found.`), { status: 404 });
      }
      const onConversation = conversationCall(mock.conversations, request.method, path, body);
      if (onConversation) return onConversation;
      // Realtime call control answers an empty 200, as OpenAI's does; an offer, SDP and the call's URL.
      if (/^\/realtime\/calls\/[\w-]+\/(accept|hangup|refer|reject)$/.test(path)) return new Response(null, { status: 200 });
      if (path === "/realtime/calls") return new Response("v=0\r\n", { status: 201, headers: { "content-type": "application/sdp", location: "/v1/realtime/calls/rtc_mock" } });
      const onStoredCompletion = storedCompletionCall(mock.storedCompletions, request.method, path, body) ?? evalCall(mock.evals, request.method, path, body);
      if (onStoredCompletion) return onStoredCompletion;
      const fault = mock.faults.shift();
      if (fault?.kind === "delay") await Bun.sleep(fault.ms);
      if (fault?.kind === "status") return Response.json(errorBody(fault.status, fault.message ?? `mock failure ${fault.status}`), { status: fault.status, headers: fault.headers });
      if (fault?.kind === "drop") {
        return new Response(new ReadableStream({ start: (controller) => controller.error(new Error("dropped")) }));
      }
      if (fault?.kind === "body") return new Response(fault.body, { headers: { "content-type": fault.contentType } });
      if (fault?.kind === "stream-events") return new Response(sse(fault.events.map((data) => ({ data })), true), { headers: { "content-type": "text/event-stream" } });
      const end: StreamEnd = fault?.kind === "drop-mid-stream" ? { kind: "drop" } : fault?.kind === "error-mid-stream" ? { kind: "error", message: fault.message } : { kind: "complete" };
      const gate = body.stream ? gates.shift() : undefined;
      if (gate) {
        request.signal.addEventListener("abort", () => gate.cancel(), { once: true });
        gate.arrive(recorded);
      }
      const streamHeaders = { "content-type": "text/event-stream", "cache-control": "no-cache" };
      switch (path) {
        case "/chat/completions":
          if (body.stream) return new Response(sse(chatChunks(body, mock.streamUsage, mock.thinking).map((data) => ({ data })), true, end, gate), { headers: streamHeaders });
          return Response.json(keptIfAsked(mock.storedCompletions, body, chatCompletion(body, mock.thinking)));
        case "/completions":
          return body.stream ? new Response(sse(completionChunks(body, mock.streamUsage).map((data) => ({ data })), true, end, gate), { headers: streamHeaders }) : Response.json(textCompletion(body));
        case "/embeddings":
          return Response.json(embeddings(body));
        case "/realtime/client_secrets": {
          const session = { type: "realtime", model: "gpt-realtime", ...(body.session as object) };
          return Response.json({ value: `ek_${crypto.randomUUID().replaceAll("-", "")}`, expires_at: Math.floor(Date.now() / 1000) + 600, session });
        }
        case "/responses": {
          if (foreignReasoning(body)) return Response.json(undecryptable(foreignReasoning(body)!), { status: 400 });
          const done = responsesObject(body);
          const shown = keptResponse(mock.kept, body, done, bearer);
          if (body.stream) return new Response(sse(responsesEvents(done), false, end, gate), { headers: streamHeaders });
          return Response.json(shown);
        }
        default:
          return Response.json(errorBody(404, `mock has no route ${url.pathname}`), { status: 404 });
      }
    },
  });
  mock.url = `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${server.port}`;
  mock.baseUrl = `${mock.url}/v1`;
  return mock;
}
