/**
 * A mock upstream speaking Cohere's v2 wire format: /v2/chat (JSON, and SSE with `event:` names,
 * tool plans, tool calls, citations, usage in message-end), /v2/embed (embeddings by type) and
 * /v2/rerank. Like Cohere it rejects a wrong bearer key, unknown paths, tool results whose
 * tool_call_id matches no call, and v3+ embed requests without input_type.
 */
import { type Fault, mockEmbedding, type RecordedRequest } from "./mock-openai";

type Part = { type?: string; text?: string; document?: { data?: unknown } };
type Message = { role: string; content?: string | Part[]; tool_call_id?: string; tool_calls?: Array<{ id: string }> };
type ChatBody = {
  messages: Message[];
  tools?: Array<{ function: { name: string } }>;
  documents?: unknown[];
  response_format?: { type: string };
  max_tokens?: number;
  stop_sequences?: string[];
};

const encoder = new TextEncoder();
const words = (text: string) => text.split(/(?<= )/).filter(Boolean);
const countTokens = (text: string) => Math.max(1, text.split(/\s+/).filter(Boolean).length);
const textOf = (content: Message["content"]) =>
  typeof content === "string" ? content : (content ?? []).map((part) => part.text ?? JSON.stringify(part.document?.data ?? "")).join("");
const cohereError = (status: number, message: string) => Response.json({ id: crypto.randomUUID(), message }, { status });

interface PlannedReply {
  text: string;
  finish: "COMPLETE" | "MAX_TOKENS" | "STOP_SEQUENCE" | "TOOL_CALL";
  toolPlan?: string;
  toolCall?: { id: string; type: "function"; function: { name: string; arguments: string } };
  citation?: { start: number; end: number; text: string; sources: unknown[]; type: "TEXT_CONTENT" };
}

/** `echo: <last user text>`; after a tool result, `tool said: <result>`; a tool call when tools are offered and the text asks for one. */
function plannedReply(body: ChatBody): PlannedReply {
  const last = body.messages.at(-1)!;
  const userText = textOf([...body.messages].reverse().find((message) => message.role === "user")?.content);
  const toolName = body.tools?.[0]?.function.name;
  if (toolName && last.role === "user" && /\btool\b|weather/i.test(userText)) {
    const toolCall = { id: "get_weather_mock1", type: "function" as const, function: { name: toolName, arguments: JSON.stringify({ city: "Paris" }) } };
    return { text: "", finish: "TOOL_CALL", toolPlan: "I will look up the weather in Paris.", toolCall };
  }
  let text = last.role === "tool" ? `tool said: ${textOf(last.content)}` : `echo: ${userText}`;
  if (body.response_format?.type === "json_object") text = JSON.stringify({ answer: text });
  let finish: PlannedReply["finish"] = "COMPLETE";
  const stop = body.stop_sequences?.find((sequence) => text.includes(sequence));
  if (stop) [text, finish] = [text.slice(0, text.indexOf(stop)), "STOP_SEQUENCE"];
  if (body.max_tokens && words(text).length > body.max_tokens) [text, finish] = [words(text).slice(0, body.max_tokens).join(""), "MAX_TOKENS"];
  const citation = body.documents?.length ? { start: 0, end: 5, text: text.slice(0, 5), sources: [{ type: "document", id: "doc:0", document: { id: "doc:0", snippet: String(body.documents[0]) } }], type: "TEXT_CONTENT" as const } : undefined;
  return { text, finish, citation };
}

/** Cohere rejects a tool result that answers no tool call of an earlier assistant turn. */
function orphanToolResult(messages: Message[]): Message | undefined {
  const calls = new Set(messages.flatMap((message) => message.tool_calls?.map((call) => call.id) ?? []));
  return messages.find((message) => message.role === "tool" && !calls.has(message.tool_call_id ?? ""));
}

function usage(body: ChatBody, reply: PlannedReply) {
  const input = countTokens(body.messages.map((message) => textOf(message.content)).join(" "));
  const output = reply.toolCall ? 12 : countTokens(reply.text);
  return { billed_units: { input_tokens: input, output_tokens: output }, tokens: { input_tokens: input + 60, output_tokens: output } };
}

function chatResponse(body: ChatBody) {
  const reply = plannedReply(body);
  const message = reply.toolCall
    ? { role: "assistant", tool_plan: reply.toolPlan, tool_calls: [reply.toolCall] }
    : { role: "assistant", content: [{ type: "text", text: reply.text }], ...(reply.citation ? { citations: [reply.citation] } : {}) };
  return { id: crypto.randomUUID(), message, finish_reason: reply.finish, usage: usage(body, reply) };
}

function chatEvents(body: ChatBody): Array<Record<string, unknown>> {
  const reply = plannedReply(body);
  const events: Array<Record<string, unknown>> = [
    { id: crypto.randomUUID(), type: "message-start", delta: { message: { role: "assistant", content: [], tool_plan: "", tool_calls: [], citations: [] } } },
  ];
  if (reply.toolCall) {
    for (const piece of words(reply.toolPlan!)) events.push({ type: "tool-plan-delta", delta: { message: { tool_plan: piece } } });
    const args = reply.toolCall.function.arguments;
    events.push({ type: "tool-call-start", index: 0, delta: { message: { tool_calls: { ...reply.toolCall, function: { name: reply.toolCall.function.name, arguments: "" } } } } });
    for (const piece of [args.slice(0, 5), args.slice(5)]) events.push({ type: "tool-call-delta", index: 0, delta: { message: { tool_calls: { function: { arguments: piece } } } } });
    events.push({ type: "tool-call-end", index: 0 });
  } else {
    events.push({ type: "content-start", index: 0, delta: { message: { content: { type: "text", text: "" } } } });
    for (const piece of words(reply.text)) events.push({ type: "content-delta", index: 0, delta: { message: { content: { text: piece } } } });
    if (reply.citation) events.push({ type: "citation-start", index: 0, delta: { message: { citations: reply.citation } } }, { type: "citation-end", index: 0 });
    events.push({ type: "content-end", index: 0 });
  }
  events.push({ type: "message-end", delta: { finish_reason: reply.finish, usage: usage(body, reply) } });
  return events;
}

function sse(events: Array<Record<string, unknown>>, cut: boolean): ReadableStream<Uint8Array> {
  return new ReadableStream({
    async pull(controller) {
      for (const [index, event] of events.entries()) {
        if (cut && index >= events.length / 2) return controller.error(new Error("connection dropped by mock"));
        controller.enqueue(encoder.encode(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`));
        await Bun.sleep(1);
      }
      controller.enqueue(encoder.encode("data: [DONE]\n\n"));
      controller.close();
    },
  });
}

type EmbedBody = { model: string; texts?: string[]; input_type?: string; embedding_types?: string[]; output_dimension?: number };

function embed(body: EmbedBody): Response {
  if (!body.texts?.length) return cohereError(400, "invalid request: texts, images or inputs must be provided");
  if (!body.input_type && /v3|v4/.test(body.model)) return cohereError(400, "invalid request: valid input_type must be provided with the provided model");
  const vectors = body.texts.map((text) => mockEmbedding(text, body.output_dimension ?? 8));
  const byType = Object.fromEntries((body.embedding_types ?? ["float"]).map((type) => [type, type === "int8" ? vectors.map((vector) => vector.map((value) => Math.round(value * 127))) : vectors]));
  const tokens = countTokens(body.texts.join(" "));
  return Response.json({ id: crypto.randomUUID(), embeddings: byType, texts: body.texts, meta: { api_version: { version: "2" }, billed_units: { input_tokens: tokens } }, response_type: "embeddings_by_type" });
}

type RerankBody = { query?: string; documents?: Array<string | { text: string }>; top_n?: number };

/** Relevance is the share of query words a document contains. */
function rerank(body: RerankBody): Response {
  if (!body.query || !body.documents?.length) return cohereError(400, "invalid request: query and documents are required");
  const queryWords = body.query.toLowerCase().split(/\s+/);
  const results = body.documents
    .map((document, index) => {
      const text = (typeof document === "string" ? document : document.text).toLowerCase();
      return { index, relevance_score: queryWords.filter((word) => text.includes(word)).length / queryWords.length };
    })
    .sort((a, b) => b.relevance_score - a.relevance_score)
    .slice(0, body.top_n ?? body.documents.length);
  return Response.json({ id: crypto.randomUUID(), results, meta: { api_version: { version: "2" }, billed_units: { search_units: 1 } } });
}

export interface MockCohere {
  url: string;
  /** The API root to configure as the provider's base_url. */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Faults applied to the next requests, one each, in order. */
  faults: Fault[];
  stop(): void;
}

function chat(body: ChatBody, cut: boolean, stream: boolean): Response {
  if (!Array.isArray(body.messages) || body.messages.length === 0) return cohereError(400, "invalid request: messages must not be empty");
  const orphan = orphanToolResult(body.messages);
  if (orphan) return cohereError(400, `invalid request: tool_call_id '${orphan.tool_call_id}' does not match any tool call`);
  if (!stream) return Response.json(chatResponse(body));
  return new Response(sse(chatEvents(body), cut), { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
}

export function startMockCohere(apiKey: string): MockCohere {
  const mock: MockCohere = { url: "", baseUrl: "", requests: [], faults: [], stop: () => server.stop(true) };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const body = (await request.json().catch(() => ({}))) as Record<string, unknown>;
      mock.requests.push({ path: url.pathname, headers: request.headers, body, receivedAt: performance.now() });
      if (request.headers.get("authorization")?.replace(/^bearer /i, "") !== apiKey) return cohereError(401, "invalid api token");
      const fault = mock.faults.shift();
      if (fault?.kind === "delay") await Bun.sleep(fault.ms);
      if (fault?.kind === "status") return cohereError(fault.status, fault.message ?? `mock failure ${fault.status}`);
      if (typeof body.model !== "string" || !body.model) return cohereError(400, "invalid request: model is required");
      switch (url.pathname) {
        case "/v2/chat":
          return chat(body as unknown as ChatBody, fault?.kind === "drop-mid-stream", body.stream === true);
        case "/v2/embed":
          return embed(body as unknown as EmbedBody);
        case "/v2/rerank":
          return rerank(body as RerankBody);
        default:
          return cohereError(404, `no route for ${url.pathname}`);
      }
    },
  });
  mock.url = `http://127.0.0.1:${server.port}`;
  mock.baseUrl = `${mock.url}/v2`;
  return mock;
}
