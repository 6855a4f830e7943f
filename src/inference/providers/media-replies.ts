import type { UpstreamSuccess } from "../../upstream/adapter";

/** A reply's body as bytes, whichever way it arrived (binary replies come as streams). */
export async function replyBytes(reply: UpstreamSuccess): Promise<Uint8Array> {
  if ("stream" in reply) return new Uint8Array(await new Response(reply.stream).arrayBuffer());
  return new TextEncoder().encode(reply.body);
}

/** A reply's body as text, whichever way it arrived (JSONL results may come typed as binary). */
export async function replyText(reply: UpstreamSuccess): Promise<string> {
  return "stream" in reply ? new Response(reply.stream).text() : reply.body;
}

/** A reply's body as JSON, whichever way it arrived. */
export async function replyJson<T>(reply: UpstreamSuccess): Promise<T> {
  return JSON.parse(await replyText(reply)) as T;
}

/** A JSON body in place of the upstream's, in the operation's own shape. */
export const jsonReply = (reply: UpstreamSuccess, body: unknown): UpstreamSuccess => ({ ok: true, status: reply.status, headers: new Headers({ "content-type": "application/json" }), body: JSON.stringify(body) });

/** Audio (or any bytes) in place of the upstream's body, as a stream like every binary reply. */
export const binaryReply = (reply: UpstreamSuccess, bytes: Uint8Array, contentType: string): UpstreamSuccess => ({ ok: true, status: reply.status, headers: new Headers({ "content-type": contentType }), stream: new Response(bytes).body! });

/** OpenAI's images response from base64 images or URLs. */
export const imagesResponse = (images: Array<{ b64_json: string } | { url: string }>) => ({ created: Math.floor(Date.now() / 1000), data: images });
