/**
 * A mock upstream speaking Anthropic's Messages API: /v1/messages (JSON, and SSE from
 * message_start to message_stop with ping, text, thinking + signature, redacted thinking and
 * tool-use events), /v1/messages/count_tokens, /v1/messages/batches and legacy /v1/complete.
 * Like Anthropic it rejects a wrong `x-api-key`, a missing `anthropic-version`, a request
 * without max_tokens, temperature with top_p, sampling or a forced tool that thinking refuses, tool results that answer no tool_use of the previous turn, a final assistant
 * turn of tool calls that does not open with its thinking while thinking is on, and thinking
 * blocks without a signature. Prompt caching is simulated: the first request with a cache
 * breakpoint writes the cache, the same prefix again reads it.
 */
import { type Fault, type RecordedRequest, splitInMessage } from "./mock-openai";
import { scriptedToolCall } from "./scripted-tool-call";

type Block = { type: string; text?: string; id?: string; tool_use_id?: string; content?: unknown; signature?: string; cache_control?: { ttl?: string } };
type Message = { role: "user" | "assistant" | "system"; content: string | Block[] };
type MessagesBody = {
  model: string;
  max_tokens?: number;
  messages?: Message[];
  system?: string | Block[];
  tools?: Array<{ name: string; cache_control?: unknown }>;
  stop_sequences?: string[];
  thinking?: { type: string; display?: string };
  stream?: boolean;
  temperature?: number;
  top_p?: number;
  top_k?: number;
  tool_choice?: { type: string };
  output_config?: { format?: unknown };
};

const encoder = new TextEncoder();
const words = (text: string) => text.split(/(?<= )/).filter(Boolean);
const countTokens = (text: string) => Math.max(1, text.split(/\s+/).filter(Boolean).length);
const blocksOf = (content: Message["content"] | undefined): Block[] => (typeof content === "string" ? [{ type: "text", text: content }] : (content ?? []));
const textOf = (content: unknown): string => (typeof content === "string" ? content : blocksOf(content as Block[]).map((block) => block.text ?? "").join(""));

const anthropicError = (status: number, type: string, message: string) => Response.json({ type: "error", error: { type, message } }, { status });

/** Extended thinking is on: `enabled` with a budget, or `adaptive` (the model decides how much). */
const thinkingOn = (body: MessagesBody) => body.thinking?.type === "enabled" || body.thinking?.type === "adaptive";

/** The last turn of the conversation: system messages between turns (Claude Code's) are instructions, not turns. */
const lastTurn = (body: MessagesBody): Message => body.messages!.findLast((message) => message.role !== "system") ?? body.messages!.at(-1)!;

/** The tool call a test scripted in the user's prompt (see scripted-tool-call.ts), while no tool has answered yet. */
function scriptedCall(body: MessagesBody) {
  const turn = lastTurn(body);
  if (turn.role !== "user" || blocksOf(turn.content).some((block) => block.type === "tool_result")) return undefined;
  return scriptedToolCall(textOf(turn.content), (body.tools ?? []).map((tool) => tool.name));
}

/** The stop reasons no prompt can provoke from a mock; a test names them as `[stop_reason:<reason>]`. */
const FORCED_STOP = /\[stop_reason:(pause_turn|refusal|model_context_window_exceeded)\]/;

/** What a real API would refuse in the conversation, or undefined when it would answer. */
function invalidConversation(body: MessagesBody): string | undefined {
  if (typeof body.max_tokens !== "number") return "max_tokens: Field required";
  // Claude 4.1 and later take one of temperature and top_p; thinking takes neither changed, nor top_k, nor a forced tool.
  if (body.temperature !== undefined && body.top_p !== undefined) return "`temperature` and `top_p` cannot both be specified for this model. Please use only one.";
  if (thinkingOn(body)) {
    if (body.temperature !== undefined && body.temperature !== 1) return "`temperature` may only be set to 1 when thinking is enabled or in interleaved thinking mode.";
    if (body.top_k !== undefined) return "`top_k` must be unset when thinking is enabled.";
    if (body.top_p !== undefined && body.top_p < 0.95) return "`top_p` must be greater than or equal to 0.95 or unset when thinking is enabled.";
    if (body.tool_choice?.type === "any" || body.tool_choice?.type === "tool") return "Thinking may not be enabled when tool_choice forces tool use.";
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) return "messages: Field required";
  const unknownRole = body.messages.findIndex((message) => !["user", "assistant", "system"].includes(message.role));
  if (unknownRole >= 0) return `messages.${unknownRole}.role: Input should be 'user', 'assistant' or 'system'`;
  const lastAssistant = body.messages.findLastIndex((message) => message.role === "assistant");
  const turn = blocksOf(body.messages[lastAssistant]?.content);
  if (thinkingOn(body) && turn.some((block) => block.type === "tool_use") && turn[0]?.type !== "thinking" && turn[0]?.type !== "redacted_thinking") {
    return `messages.${lastAssistant}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${turn[0]?.type}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block`;
  }
  for (const [index, message] of body.messages.entries()) {
    const previous = body.messages[index - 1];
    const toolUses = new Set(blocksOf(previous?.content).flatMap((block) => (block.type === "tool_use" ? [block.id] : [])));
    for (const block of blocksOf(message.content)) {
      if (block.type === "tool_result" && !toolUses.has(block.tool_use_id)) return `messages.${index}: tool_result ${block.tool_use_id} answers no tool_use of the previous turn`;
      if (block.type === "thinking" && !block.signature) return `messages.${index}: thinking block has no valid signature`;
    }
  }
  return undefined;
}

function cacheUsage(body: MessagesBody, cache: Set<string>) {
  const marked = [...blocksOf(body.system), ...(body.messages ?? []).flatMap((message) => blocksOf(message.content))].filter((block) => block.cache_control);
  if (marked.length === 0) return { cache_creation_input_tokens: 0, cache_read_input_tokens: 0, cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 } };
  const prefix = JSON.stringify([body.system, body.tools]);
  const tokens = countTokens(textOf(body.system) || prefix);
  const hit = cache.has(prefix);
  cache.add(prefix);
  const oneHour = marked.some((block) => block.cache_control?.ttl === "1h");
  return {
    cache_creation_input_tokens: hit ? 0 : tokens,
    cache_read_input_tokens: hit ? tokens : 0,
    cache_creation: { ephemeral_5m_input_tokens: hit || oneHour ? 0 : tokens, ephemeral_1h_input_tokens: !hit && oneHour ? tokens : 0 },
  };
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function plannedText(body: MessagesBody): { text: string; stopReason: string; stopSequence: string | null } {
  const last = lastTurn(body);
  const results = blocksOf(last.content).filter((block) => block.type === "tool_result");
  const userText = textOf(last.content);
  // Asked for structured output, the mock answers a user text that is JSON as it is: the test writes the model's JSON.
  const structured = body.output_config?.format !== undefined && isJson(userText);
  let text = results.length > 0 ? `tool said: ${results.map((block) => textOf(block.content)).join(", ")}` : structured ? userText : `echo: ${userText}`;
  const forced = FORCED_STOP.exec(userText)?.[1];
  if (forced) return { text, stopReason: forced, stopSequence: null };
  const stop = body.stop_sequences?.find((sequence) => text.includes(sequence));
  if (stop) return { text: text.slice(0, text.indexOf(stop)), stopReason: "stop_sequence", stopSequence: stop };
  if (words(text).length > body.max_tokens!) text = words(text).slice(0, body.max_tokens).join("");
  return { text, stopReason: words(text).length >= body.max_tokens! ? "max_tokens" : "end_turn", stopSequence: null };
}

/** `echo: <last user text>`, after tool results `tool said: ...`; thinking first when enabled; a tool call when tools are offered and asked for. */
function plannedMessage(body: MessagesBody, cache: Set<string>, preamble?: string) {
  const userText = textOf(lastTurn(body).content);
  const content: Array<Record<string, unknown>> = [];
  if (thinkingOn(body)) {
    // `display: "omitted"` keeps the thinking to the signature.
    const thinking = body.thinking?.display === "omitted" ? "" : `Considering: ${userText}`;
    content.push({ type: "thinking", thinking, signature: `sig-${Buffer.from(userText.slice(0, 200)).toString("base64")}` });
    if (/redacted/i.test(userText)) content.push({ type: "redacted_thinking", data: "opaque-redacted-thinking" });
  }
  const tool = body.tools?.[0];
  const scripted = scriptedCall(body);
  const wantsTool = scripted ?? (tool && lastTurn(body).role === "user" && typeof lastTurn(body).content === "string" && /\btool\b|weather/i.test(userText));
  let planned: ReturnType<typeof plannedText> = { text: "", stopReason: "tool_use", stopSequence: null };
  if (scripted && preamble) content.push({ type: "text", text: preamble });
  if (scripted) content.push({ type: "tool_use", id: `toolu_mock_${body.messages!.length}`, name: scripted.name, input: scripted.input });
  else if (wantsTool) content.push({ type: "tool_use", id: "toolu_mock_1", name: tool!.name, input: { city: "Paris" } });
  else planned = plannedText(body);
  if (planned.text) {
    const citations = /\bcite\b/i.test(userText) ? [{ type: "web_search_result_location", url: "https://example.com/source", title: "Source", cited_text: "the source text", encrypted_index: "enc-1" }] : undefined;
    content.push({ type: "text", text: planned.text, ...(citations ? { citations } : {}) });
  }
  const inputTokens = countTokens((body.messages ?? []).map((message) => textOf(message.content)).join(" "));
  return {
    id: `msg_mock_${crypto.randomUUID().slice(0, 8)}`,
    type: "message",
    role: "assistant",
    model: body.model,
    content,
    stop_reason: planned.stopReason,
    stop_sequence: planned.stopSequence,
    usage: { input_tokens: inputTokens, output_tokens: wantsTool ? 12 : countTokens(planned.text), ...cacheUsage(body, cache) },
  };
}

function blockEvents(block: Record<string, unknown>, index: number): Array<Record<string, unknown>> {
  const delta = (value: Record<string, unknown>) => ({ type: "content_block_delta", index, delta: value });
  switch (block.type) {
    case "text":
      return [
        { type: "content_block_start", index, content_block: { type: "text", text: "" } },
        ...words(String(block.text)).map((piece) => delta({ type: "text_delta", text: piece })),
        ...((block.citations as unknown[] | undefined) ?? []).map((citation) => delta({ type: "citations_delta", citation })),
      ];
    case "thinking":
      return [
        { type: "content_block_start", index, content_block: { type: "thinking", thinking: "" } },
        ...words(String(block.thinking)).map((piece) => delta({ type: "thinking_delta", thinking: piece })),
        delta({ type: "signature_delta", signature: block.signature }),
      ];
    case "tool_use": {
      const json = JSON.stringify(block.input);
      const half = Math.floor(json.length / 2);
      return [
        { type: "content_block_start", index, content_block: { ...block, input: {} } },
        delta({ type: "input_json_delta", partial_json: json.slice(0, half) }),
        delta({ type: "input_json_delta", partial_json: json.slice(half) }),
      ];
    }
    default:
      return [{ type: "content_block_start", index, content_block: block }];
  }
}

function streamEvents(message: ReturnType<typeof plannedMessage>): Array<Record<string, unknown>> {
  const { content, stop_reason: stopReason, stop_sequence: stopSequence, usage } = message;
  const events: Array<Record<string, unknown>> = [
    { type: "message_start", message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } },
    { type: "ping" },
  ];
  for (const [index, block] of content.entries()) events.push(...blockEvents(block, index), { type: "content_block_stop", index });
  events.push({ type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: stopSequence }, usage: { output_tokens: usage.output_tokens } });
  events.push({ type: "message_stop" });
  return events;
}

/** Awaited before each frame of a streamed reply (numbered from 0): lets a test hold a stream midway. */
type FrameHold = (frame: number) => Promise<void> | void;

/** How a stream breaks: Anthropic's `error` event (as when it is overloaded midway), or a cut connection. */
type StreamBreak = { failWith: string } | { drop: true };

/** A stream of `events`; with a `broken` end, only its first half, then the error event or the cut. */
function sse(events: Array<Record<string, unknown>>, broken?: StreamBreak, beforeFrame?: FrameHold): Response {
  const half = events.slice(0, Math.max(1, Math.floor(events.length / 2)));
  const sent = broken ? ("failWith" in broken ? [...half, { type: "error", error: { type: "overloaded_error", message: broken.failWith } }] : half) : events;
  const frames = sent.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
  if (broken && "failWith" in broken) frames.push(...splitInMessage(frames.pop()!, broken.failWith));
  let sentFrames = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      await beforeFrame?.(sentFrames++);
      const frame = frames.shift();
      if (frame === undefined && broken && "drop" in broken) return controller.error(new Error("connection dropped by mock"));
      if (frame === undefined) return controller.close();
      controller.enqueue(encoder.encode(frame));
      await Bun.sleep(1);
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" } });
}

function batch(body: { requests?: unknown[] }) {
  const now = new Date();
  return {
    id: `msgbatch_mock_${crypto.randomUUID().slice(0, 8)}`,
    type: "message_batch",
    processing_status: "in_progress",
    request_counts: { processing: body.requests?.length ?? 0, succeeded: 0, errored: 0, canceled: 0, expired: 0 },
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + 86_400_000).toISOString(),
    ended_at: null,
    cancel_initiated_at: null,
    archived_at: null,
    results_url: null,
  };
}

export interface MockAnthropic {
  url: string;
  /** The API root to configure as a provider's base_url. */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Faults applied to the next requests, one each, in order. */
  faults: Fault[];
  /** Called with every request; lets a test hold one until it decides. */
  onRequest?: (request: RecordedRequest) => Promise<void> | void;
  /** Text the model writes before a scripted tool call, as Claude often does. */
  preamble?: string;
  /** Awaited before each frame of the streamed replies: a test holds a stream midway. */
  beforeFrame?: FrameHold;
  stop(): void;
}

function route(path: string, body: Record<string, unknown>, cache: Set<string>, broken?: StreamBreak, preamble?: string, beforeFrame?: FrameHold): Response {
  switch (path) {
    case "/v1/messages": {
      const invalid = invalidConversation(body as MessagesBody);
      if (invalid) return anthropicError(400, "invalid_request_error", invalid);
      const message = plannedMessage(body as MessagesBody, cache, preamble);
      return body.stream ? sse(streamEvents(message), broken, beforeFrame) : Response.json(message);
    }
    case "/v1/messages/count_tokens":
      return Response.json({ input_tokens: countTokens(((body as MessagesBody).messages ?? []).map((message) => textOf(message.content)).join(" ")) });
    case "/v1/messages/batches":
      return Response.json(batch(body));
    case "/v1/complete":
      return Response.json({ type: "completion", id: "compl_mock_1", completion: ` echo: ${String(body.prompt).split("Human:").at(-1)!.split("\n\nAssistant:")[0]!.trim()}`, stop_reason: "stop_sequence", stop: "\n\nHuman:", model: body.model });
    default:
      return anthropicError(404, "not_found_error", `mock has no route ${path}`);
  }
}

export function startMockAnthropic(apiKey: string): MockAnthropic {
  const cache = new Set<string>();
  const mock: MockAnthropic = { url: "", baseUrl: "", requests: [], faults: [], stop: () => server.stop(true) };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      const body = (await request.json().catch(() => ({}))) as Record<string, unknown>;
      const recorded = { path: url.pathname + url.search, headers: request.headers, body, receivedAt: performance.now(), signal: request.signal };
      mock.requests.push(recorded);
      await mock.onRequest?.(recorded);
      if (request.headers.get("x-api-key") !== apiKey) return anthropicError(401, "authentication_error", "invalid x-api-key");
      if (!request.headers.get("anthropic-version")) return anthropicError(400, "invalid_request_error", "anthropic-version: header is required");
      const fault = mock.faults.shift();
      if (fault?.kind === "delay") await Bun.sleep(fault.ms);
      if (fault?.kind === "status") return anthropicError(fault.status, fault.status === 429 ? "rate_limit_error" : "api_error", fault.message ?? `mock failure ${fault.status}`);
      if (fault?.kind === "drop") return new Response(new ReadableStream({ start: (controller) => controller.error(new Error("dropped")) }));
      if (fault?.kind === "body") return new Response(fault.body, { headers: { "content-type": fault.contentType } });
      const broken = fault?.kind === "error-mid-stream" ? { failWith: fault.message } : fault?.kind === "drop-mid-stream" ? { drop: true as const } : undefined;
      return route(url.pathname, body, cache, broken, mock.preamble, mock.beforeFrame);
    },
  });
  mock.url = `http://127.0.0.1:${server.port}`;
  mock.baseUrl = `${mock.url}/v1`;
  return mock;
}
