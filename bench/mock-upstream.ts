/**
 * A lean OpenAI-format upstream for the bench, run as its own process. Unlike
 * test/support/mock-openai.ts it records nothing (memory stays flat over 100k+ requests) and
 * streams without the test mock's 1 ms pause between events, which would cap a 64-connection
 * stream run at a few thousand requests/s and make the mock, not the proxy, the bottleneck.
 * It still parses every body and speaks the real wire format: JSON replies and SSE chunks.
 *
 * A model named for a traffic shape changes the reply (the name reaches the mock unchanged
 * through every proxy measured): `bench-answer-<bytes>` streams an answer of that many bytes in
 * 20-byte tokens, `bench-ticks-<ms>x<count>` streams `count` tokens one every `ms`, and
 * `bench-slow-<ms>` answers (not streamed) after `ms`.
 */
import { exitWhenParentLeaves } from "./child-lifetime";

type ChatBody = { model?: string; stream?: boolean; stream_options?: { include_usage?: boolean }; messages?: Array<{ role: string; content?: unknown }> };

const encoder = new TextEncoder();

function replyText(body: ChatBody): string {
  const last = body.messages?.findLast((message) => message.role === "user");
  return `echo: ${typeof last?.content === "string" ? last.content : ""}`;
}

function chatCompletion(body: ChatBody, id: string) {
  const text = replyText(body);
  const words = text.split(" ").length;
  return {
    id,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
    usage: { prompt_tokens: words - 1, completion_tokens: words, total_tokens: 2 * words - 1 },
  };
}

/**
 * A stream's events in two writes: the first event on its own, the rest one event-loop turn
 * later, so a proxy reads the stream in more than one piece and the time to first byte differs
 * from the full time. (A turn between every event would make this mock the bottleneck at ~9k
 * streams/s; flushed back to back, Bun coalesces all events into one write.)
 */
function inTwoWrites([first, ...rest]: string[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    type: "direct",
    async pull(controller) {
      controller.write(encoder.encode(first!));
      await controller.flush();
      await new Promise((resolve) => setImmediate(resolve));
      for (const line of rest) controller.write(encoder.encode(line));
      await controller.flush();
      controller.close();
    },
  });
}

/** OpenAI's chat stream: one SSE event per word, and the usage after them when `include_usage` asks. */
function chatStream(body: ChatBody, id: string): ReadableStream<Uint8Array> {
  return inTwoWrites(chatEvents(body, id, replyText(body).split(/(?<= )/)));
}

/** The SSE events of an OpenAI chat stream of `words`. */
function chatEvents(body: ChatBody, id: string, words: string[]): string[] {
  const withUsage = body.stream_options?.include_usage === true;
  const base = { id, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: body.model, ...(withUsage ? { usage: null } : {}) };
  const event = (data: object) => `data: ${JSON.stringify({ ...base, ...data })}\n\n`;
  const chunk = (delta: object, finish_reason: string | null) => event({ choices: [{ index: 0, delta, finish_reason }] });
  const usage = withUsage ? [event({ choices: [], usage: { prompt_tokens: words.length - 1, completion_tokens: words.length, total_tokens: 2 * words.length - 1 } })] : [];
  return [chunk({ role: "assistant", content: "" }, null), ...words.map((content) => chunk({ content }, null)), chunk({}, "stop"), ...usage, "data: [DONE]\n\n"];
}

/** Anthropic's Messages stream, event by event. */
function messagesStream(body: ChatBody, id: string): ReadableStream<Uint8Array> {
  const event = (name: string, data: object) => `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;
  const words = replyText(body).split(/(?<= )/);
  return inTwoWrites([
    event("message_start", { message: { id, type: "message", role: "assistant", model: body.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: words.length, output_tokens: 1 } } }),
    event("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
    ...words.map((text) => event("content_block_delta", { index: 0, delta: { type: "text_delta", text } })),
    event("content_block_stop", { index: 0 }),
    event("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: words.length } }),
    event("message_stop", {}),
  ]);
}

const TOKEN_BYTES = 20;

/** An answer of `bytes` bytes in tokens of TOKEN_BYTES, as `bench-answer-<bytes>` asks. */
function longAnswer(bytes: number): string[] {
  const text = "The function reads the file, parses each line and returns the totals. ".repeat(Math.ceil(bytes / 70)).slice(0, bytes);
  return Array.from({ length: Math.ceil(bytes / TOKEN_BYTES) }, (_, index) => text.slice(index * TOKEN_BYTES, (index + 1) * TOKEN_BYTES));
}

/** `count` tokens, one every `intervalMs`, each flushed on its own: a model generating slowly. */
function paced(events: string[], intervalMs: number): ReadableStream<Uint8Array> {
  return new ReadableStream({
    type: "direct",
    async pull(controller) {
      for (const event of events) {
        controller.write(encoder.encode(event));
        await controller.flush();
        await Bun.sleep(intervalMs);
      }
      controller.close();
    },
  });
}

const SHAPE = /^(?:[\w-]+\/)?bench-(answer|ticks|slow)-(\d+)(?:x(\d+))?$/;

/** The reply a traffic-shape model asks for, or undefined for an ordinary model. */
async function shapedReply(body: ChatBody, id: string): Promise<Response | undefined> {
  const shape = SHAPE.exec(body.model ?? "");
  if (!shape) return undefined;
  const [, kind, first, second] = shape;
  if (kind === "slow") {
    await Bun.sleep(Number(first));
    return Response.json(chatCompletion(body, id));
  }
  const tokens = kind === "answer" ? longAnswer(Number(first)) : Array.from({ length: Number(second ?? 1) }, (_, index) => `token ${index} `);
  const events = chatEvents(body, id, tokens);
  const stream = kind === "answer" ? inTwoWrites(events) : paced(events, Number(first));
  return new Response(stream, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
}

let served = 0;
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  idleTimeout: 0,
  async fetch(request) {
    const { pathname } = new URL(request.url);
    if (request.method === "POST" && pathname.endsWith("/messages")) {
      const body = (await request.json()) as ChatBody;
      return new Response(messagesStream(body, `msg_bench${++served}`), { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
    }
    // The receivers of the exports bench (BENCH_EXPORTS): OTLP spans and log sink batches, taken and dropped.
    if (request.method === "POST" && (pathname === "/v1/traces" || pathname === "/log-sink")) {
      await request.arrayBuffer();
      return new Response(null, { status: 200 });
    }
    if (request.method !== "POST" || !pathname.endsWith("/chat/completions")) {
      return Response.json({ error: { message: `bench mock has no route ${request.method} ${pathname}`, type: "invalid_request_error" } }, { status: 404 });
    }
    const body = (await request.json()) as ChatBody;
    const id = `chatcmpl-bench${++served}`;
    const shaped = await shapedReply(body, id);
    if (shaped) return shaped;
    if (!body.stream) return Response.json(chatCompletion(body, id));
    return new Response(chatStream(body, id), { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
  },
});

exitWhenParentLeaves();
console.log(`bench mock upstream listening on http://127.0.0.1:${server.port}`);
