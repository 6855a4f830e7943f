/** Response headers worth replaying; per-connection ones are left to the server. */
const KEPT_HEADERS = ["content-type", "cache-control", "x-gw-provider", "x-gw-model"];

export function replayableHeaders(headers: Headers): Record<string, string> {
  return Object.fromEntries(KEPT_HEADERS.flatMap((name) => (headers.has(name) ? [[name, headers.get(name)!]] : [])));
}

function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}

/**
 * Passes a response to the client unchanged while keeping its bytes, and hands them to `keep`
 * once complete: a stream only when it ended normally (not cut, not cancelled), and the client
 * sees its end only after `keep` is done, so its next request finds the entry. Responses over
 * `maxBytes` are not kept.
 */
export async function captureResponse(response: Response, stream: boolean, maxBytes: number, keep: (bytes: Uint8Array) => Promise<void>): Promise<Response> {
  if (!response.body) return response;
  if (!stream) {
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.length <= maxBytes) await keep(bytes);
    return new Response(bytes, response);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const tap = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
      controller.enqueue(chunk);
    },
    async flush() {
      if (size <= maxBytes) await keep(concat(chunks, size));
    },
  });
  return new Response(response.body.pipeThrough(tap), response);
}
