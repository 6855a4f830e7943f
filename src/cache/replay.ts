import type { ResponseCacheRow } from "../db/schema";

/** A stored event stream cut back into its events, so the client reads it as it read the original. */
function eventStream(bytes: Buffer): ReadableStream<Uint8Array> {
  let start = 0;
  return new ReadableStream({
    pull(controller) {
      if (start >= bytes.length) return controller.close();
      const boundary = bytes.indexOf("\n\n", start);
      const next = boundary < 0 ? bytes.length : boundary + 2;
      controller.enqueue(new Uint8Array(bytes.subarray(start, next)));
      start = next;
    },
  });
}

export interface CacheHit {
  entry: ResponseCacheRow;
  type: "direct" | "semantic";
  similarity?: number;
}

/** The stored response, as it was sent, with headers saying where it came from. */
export function replay({ entry, type, similarity }: CacheHit): Response {
  const headers = new Headers(entry.headers);
  headers.set("x-gw-cache-hit", type);
  headers.set("x-gw-cache-id", entry.id);
  if (similarity !== undefined) headers.set("x-gw-cache-similarity", similarity.toFixed(4));
  const isEventStream = entry.stream && (headers.get("content-type") ?? "").includes("text/event-stream");
  return new Response(isEventStream ? eventStream(entry.body) : new Uint8Array(entry.body), { status: entry.status, headers });
}
