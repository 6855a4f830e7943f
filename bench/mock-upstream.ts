/**
 * A lean OpenAI-format upstream for the bench, run as its own process. Unlike
 * test/support/mock-openai.ts it records nothing (memory stays flat over 100k+ requests) and
 * streams without the test mock's 1 ms pause between events, which would cap a 64-connection
 * stream run at a few thousand requests/s and make the mock, not the proxy, the bottleneck.
 * It still parses every body and speaks the real wire format: JSON replies and SSE chunks.
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
  const withUsage = body.stream_options?.include_usage === true;
  const base = { id, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: body.model, ...(withUsage ? { usage: null } : {}) };
  const event = (data: object) => `data: ${JSON.stringify({ ...base, ...data })}\n\n`;
  const chunk = (delta: object, finish_reason: string | null) => event({ choices: [{ index: 0, delta, finish_reason }] });
  const words = replyText(body).split(/(?<= )/);
  const usage = withUsage ? [event({ choices: [], usage: chatCompletion(body, id).usage })] : [];
  return inTwoWrites([chunk({ role: "assistant", content: "" }, null), ...words.map((content) => chunk({ content }, null)), chunk({}, "stop"), ...usage, "data: [DONE]\n\n"]);
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
    if (request.method !== "POST" || !pathname.endsWith("/chat/completions")) {
      return Response.json({ error: { message: `bench mock has no route ${request.method} ${pathname}`, type: "invalid_request_error" } }, { status: 404 });
    }
    const body = (await request.json()) as ChatBody;
    const id = `chatcmpl-bench${++served}`;
    if (!body.stream) return Response.json(chatCompletion(body, id));
    return new Response(chatStream(body, id), { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
  },
});

exitWhenParentLeaves();
console.log(`bench mock upstream listening on http://127.0.0.1:${server.port}`);
