import { withKeepAlive } from "../sse-keepalive";

const encoder = new TextEncoder();

export const sseEvent = (message: unknown) => encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`);

/** An SSE answer that proxies pass through at once and that never stays quiet for `keepAliveMs`. */
export const sseResponse = (body: ReadableStream<Uint8Array>, keepAliveMs: number) =>
  withKeepAlive(new Response(body, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache", "x-accel-buffering": "no" } }), keepAliveMs);
