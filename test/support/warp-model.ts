/**
 * A scripted OpenAI-compatible upstream for the dashboard agent's tests.
 *
 * Chat completions (JSON and SSE, OpenAI's wire format) follow a script the test sets: each
 * request takes the next step, either tool calls to request or text to answer, or a hang that
 * answers only when the caller gives up. A request with `tool_choice: "none"` (or no tools) is
 * answered with text without taking a step, as a real model obeys it.
 *
 * Embeddings are bag-of-topics vectors: one axis per topic word of `vocabulary` (counting the
 * words of the text that start with it) plus a last axis for texts about none of them,
 * normalized. Which texts are nearest is therefore known from their words alone.
 */

export type ScriptStep =
  | { tools: Array<{ name: string; arguments?: Record<string, unknown> }> }
  | { text: string }
  /** Never answers; the request ends when the caller aborts it. */
  | { hang: true };

export interface ChatRequestRecord {
  body: Record<string, unknown>;
  messages: Array<{ role: string; content?: unknown; tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>; tool_call_id?: string }>;
  tools: string[];
  /** The Authorization header the gateway sent: which provider key it used. */
  authorization: string | null;
  aborted: Promise<void>;
}

export interface HeldEmbeddings {
  /** Resolves when the next embeddings request arrives. */
  arrived: Promise<void>;
  /** Lets the held request (and every later one) through. */
  release(): void;
}

export interface WarpModel {
  baseUrl: string;
  vocabulary: readonly string[];
  /** Steps for the next chat requests, in order. */
  script: ScriptStep[];
  /** What a request gets once the script is used up; a tool step here repeats forever. */
  afterScript: ScriptStep;
  chats: ChatRequestRecord[];
  embeddingInputs: string[][];
  holdEmbeddings(): HeldEmbeddings;
  stop(): void;
}

export function topicEmbedding(text: string, vocabulary: readonly string[]): number[] {
  const words = text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  const counts = vocabulary.map((topic) => words.filter((word) => word.startsWith(topic)).length);
  counts.push(counts.every((value) => value === 0) ? 1 : 0);
  const norm = Math.hypot(...counts);
  return counts.map((value) => value / norm);
}

export const cosine = (a: number[], b: number[]) => a.reduce((sum, value, index) => sum + value * b[index]!, 0);

const encoder = new TextEncoder();
const frame = (data: unknown) => encoder.encode(`data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);

type Message = ChatRequestRecord["messages"][number];

function replyFor(step: ScriptStep, body: Record<string, unknown>, round: number) {
  const messages = body.messages as Message[];
  if ("tools" in step) {
    const calls = step.tools.map((call, index) => ({ id: `call_${round}_${index}`, type: "function", function: { name: call.name, arguments: JSON.stringify(call.arguments ?? {}) } }));
    return { message: { role: "assistant", content: null, tool_calls: calls }, finish: "tool_calls" };
  }
  const toolResults = messages.filter((message) => message.role === "tool").length;
  return { message: { role: "assistant", content: "text" in step ? step.text : `answered after ${toolResults} tool results` }, finish: "stop" };
}

function chunksOf(reply: ReturnType<typeof replyFor>, model: unknown) {
  const base = { id: `chatcmpl-${crypto.randomUUID()}`, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
  const chunks: unknown[] = [chunk({ role: "assistant", content: "" })];
  const message = reply.message as { content: string | null; tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }> };
  for (const word of (message.content ?? "").split(/(?<= )/).filter(Boolean)) chunks.push(chunk({ content: word }));
  for (const [index, call] of (message.tool_calls ?? []).entries()) {
    chunks.push(chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }] }));
    chunks.push(chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments } }] }));
  }
  chunks.push(chunk({}, reply.finish));
  chunks.push({ ...base, choices: [], usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 } });
  return chunks;
}

function streamOf(chunks: unknown[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(frame(chunk));
      controller.enqueue(frame("[DONE]"));
      controller.close();
    },
  });
}

export function startWarpModel(vocabulary: readonly string[]): WarpModel {
  let gate: { arrive: () => void; released: Promise<void> } | undefined;
  const model: WarpModel = {
    baseUrl: "",
    vocabulary,
    script: [],
    afterScript: { text: "done" },
    chats: [],
    embeddingInputs: [],
    holdEmbeddings() {
      const arrival = Promise.withResolvers<void>();
      const release = Promise.withResolvers<void>();
      gate = { arrive: arrival.resolve, released: release.promise };
      return { arrived: arrival.promise, release: release.resolve };
    },
    stop: () => server.stop(true),
  };

  async function embeddings(body: Record<string, unknown>): Promise<Response> {
    const inputs = Array.isArray(body.input) ? (body.input as string[]) : [String(body.input)];
    model.embeddingInputs.push(inputs);
    gate?.arrive();
    await gate?.released;
    const dimensions = vocabulary.length + 1;
    if (body.dimensions !== undefined && body.dimensions !== dimensions) {
      return Response.json({ error: { message: `this model has ${dimensions} dimensions`, type: "invalid_request_error" } }, { status: 400 });
    }
    const data = inputs.map((input, index) => ({ object: "embedding", index, embedding: topicEmbedding(input, vocabulary) }));
    return Response.json({ object: "list", model: body.model, data, usage: { prompt_tokens: inputs.length, total_tokens: inputs.length } });
  }

  async function chat(body: Record<string, unknown>, { signal, headers }: Request): Promise<Response> {
    const tools = ((body.tools ?? []) as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
    const aborted = new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    model.chats.push({ body, messages: body.messages as Message[], tools, authorization: headers.get("authorization"), aborted });
    const toolsAllowed = tools.length > 0 && body.tool_choice !== "none";
    const next = model.script[0] ?? model.afterScript;
    const step: ScriptStep = "tools" in next && !toolsAllowed ? { text: "answering without tools" } : (model.script.shift() ?? model.afterScript);
    if ("hang" in step) {
      await aborted;
      return new Response(null, { status: 499 });
    }
    const reply = replyFor(step, body, model.chats.length);
    if (body.stream) return new Response(streamOf(chunksOf(reply, body.model)), { headers: { "content-type": "text/event-stream" } });
    return Response.json({ id: "chatcmpl-1", object: "chat.completion", created: 0, model: body.model, choices: [{ index: 0, message: reply.message, finish_reason: reply.finish }], usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 } });
  }

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      // The gateway lists a key's models when the key is written (key health).
      if (request.method === "GET" && path.endsWith("/models")) return Response.json({ object: "list", data: [] });
      const body = (await request.json()) as Record<string, unknown>;
      if (path.endsWith("/embeddings")) return embeddings(body);
      if (path.endsWith("/chat/completions")) return chat(body, request);
      return Response.json({ error: { message: `no route ${path}` } }, { status: 404 });
    },
  });
  model.baseUrl = `http://127.0.0.1:${server.port}/v1`;
  return model;
}
