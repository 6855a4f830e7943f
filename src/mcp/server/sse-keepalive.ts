/**
 * How long a client whose stream broke waits before it reconnects (with Last-Event-ID) to resume
 * it: the SSE `retry` field, sent as each stream opens.
 */
export const SSE_RETRY_MS = 1000;

// A comment and a `retry` field with no data: every client takes the delay, none sees an event.
const OPENED = new TextEncoder().encode(`: stream open\nretry: ${SSE_RETRY_MS}\n\n`);
const ALIVE = new TextEncoder().encode(": keep-alive\n\n");

/**
 * An SSE answer that starts at once and never stays quiet for `intervalMs`: a comment and the
 * reconnection delay open it (so the headers go out before the first event, which on the GET
 * stream may never come) and
 * another follows each quiet interval, so neither the server's idle timeout nor a proxy cuts a
 * stream waiting on a slow tool. The SDK writes one whole event per chunk, so comments fall between events.
 */
export function withKeepAlive(response: Response, intervalMs: number): Response {
  if (!response.body || !response.headers.get("content-type")?.includes("text/event-stream")) return response;
  const reader = response.body.getReader();
  let timer: ReturnType<typeof setInterval> | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(OPENED);
      timer = setInterval(() => {
        try {
          controller.enqueue(ALIVE);
        } catch {
          clearInterval(timer);
        }
      }, intervalMs);
    },
    async pull(controller) {
      const { value, done } = await reader.read();
      if (!done) return controller.enqueue(value);
      clearInterval(timer);
      controller.close();
    },
    cancel(reason) {
      clearInterval(timer);
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, headers: response.headers });
}
