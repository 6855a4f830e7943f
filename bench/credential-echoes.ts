/**
 * What taking a provider key out of a stream's bytes costs a chunk (src/upstream/credential-echoes.ts):
 * the redactor's `edit` on typical SSE chunks that carry no key, and the stream around it.
 * In-process; prints µs a chunk and the bytes allocated a chunk (from the heap's growth with GC
 * forced around each run, which the machine's load does not change).
 */
import { heapStats } from "bun:jsc";
import { echoRedactor, withoutEchoedCredentials } from "../src/upstream/credential-echoes";

const KEY = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGh";
const CHUNKS = 200_000;
const chunk = new TextEncoder().encode(`data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini", choices: [{ index: 0, delta: { content: "hello there" }, finish_reason: null }] })}\n\n`);

function measure(label: string, run: () => void | Promise<void>) {
  return async () => {
    Bun.gc(true);
    const before = heapStats().heapSize;
    const started = Bun.nanoseconds();
    await run();
    const µs = (Bun.nanoseconds() - started) / 1000 / CHUNKS;
    const grown = heapStats().heapSize - before;
    Bun.gc(true);
    console.log(`${label}: ${µs.toFixed(3)} µs/chunk, heap grown ${(grown / CHUNKS).toFixed(1)} B/chunk before GC (${chunk.length}-byte chunks)`);
  };
}

const redactor = echoRedactor([KEY])!;
const relay = (wrap: (stream: ReadableStream<Uint8Array>) => ReadableStream<Uint8Array>) => async () => {
  let sent = 0;
  const source = new ReadableStream<Uint8Array>({ pull: (controller) => (sent++ < CHUNKS ? controller.enqueue(chunk) : controller.close()) }, { highWaterMark: 0 });
  const reader = wrap(source).getReader();
  while (!(await reader.read()).done);
};

await measure("edit() alone", () => {
  for (let index = 0; index < CHUNKS; index++) redactor.edit(chunk);
})();
await measure("a stream read as is", relay((stream) => stream))();
await measure("the same stream with the key taken out", relay((stream) => withoutEchoedCredentials(stream, [KEY])))();
