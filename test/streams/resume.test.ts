import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import OpenAI from "openai";
import { Stream } from "openai/streaming";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { eventually } from "../support/eventually";
import { startGateway, type TestGateway } from "../support/gateway";
import { countTokens, type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { created, createVirtualKey, openAIProvider } from "../governance/support";
import { chargedTo, contentOf, type ReadEvent, expectIdsFrom, METERED, resumableChat, resume, SseReader, TWENTY_CHUNKS } from "./support";

const PRICE = { input_cost_per_token: 0.01, output_cost_per_token: 0.02 };
/** A cut stream's usage is estimated, which loads the tokenizer on first use: seconds on a busy machine. */
const TOKENIZER_LOAD_MS = 15_000;
/** The echo's words as the mock streams them: "echo: ", then each word of the prompt. */
const WORDS = ["echo: ", ...TWENTY_CHUNKS.split(" ").map((word, index, all) => (index < all.length - 1 ? `${word} ` : word))];

let upstream: MockOpenAI;
let gw: TestGateway;

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({ providers: { openai: openAIProvider(upstream) }, resumable_streams: { flush_interval_ms: 20, follow_interval_ms: 20, max_stream_bytes: 16_384, max_reader_lag_bytes: 32_768 } });
  await created(gw, "/api/governance/pricing-overrides", { name: "round prices", pattern: "gpt-4o-mini", patch: PRICE });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

/** A raw connection that reads a resumed stream's headers, then reads nothing until `readToEnd`: a reader that stopped reading. */
async function pausedReader(gw: TestGateway, vk: string, id: string) {
  const { port } = new URL(gw.url);
  const socket = connect(Number(port), "127.0.0.1");
  const chunks: Buffer[] = [];
  const headers = Promise.withResolvers<void>();
  const ended = Promise.withResolvers<void>();
  socket.on("data", (chunk: Buffer) => {
    chunks.push(chunk);
    if (Buffer.concat(chunks).includes("\r\n\r\n")) headers.resolve();
  });
  socket.on("end", () => ended.resolve());
  socket.write(`GET /v1/streams/${id}?after=0 HTTP/1.1\r\nhost: 127.0.0.1\r\nx-gw-vk: ${vk}\r\nconnection: close\r\n\r\n`);
  await headers.promise;
  socket.pause();
  return {
    async readToEnd() {
      socket.resume();
      await ended.promise;
      return Buffer.concat(chunks).toString("utf8");
    },
  };
}

const upstreamCalls = () => upstream.requests.filter((request) => request.path.endsWith("/chat/completions")).length;

describe("a resumable stream", () => {
  test("a client that left after 3 of 20 chunks resumes with after=3 and gets chunks 4 to 20 once; the upstream was called and charged once", async () => {
    const key = await createVirtualKey(gw, { name: "left-after-three", ...METERED });
    const callsBefore = upstreamCalls();
    const held = upstream.holdNextStream();
    const client = new AbortController();
    const opened = resumableChat(gw, key.value, {}, { signal: client.signal });
    await held.arrived;
    held.release(3);
    const response = await opened;
    const id = response.headers.get("x-gw-stream-id")!;
    expect(id).toStartWith("strm_");
    const first = await new SseReader(response.body!).take(3);
    expectIdsFrom(first, 1, 3);
    client.abort();
    // The gateway reads on alone: the rest of the reply arrives with no client connected.
    held.release(100);

    const rest = await new SseReader((await resume(gw, key.value, id, "?after=3")).body!).rest();
    expectIdsFrom(rest, 4, 21);
    expect([...first, ...rest].map(contentOf).join("")).toBe(WORDS.join(""));
    expect(rest.map(contentOf).filter(Boolean)).toEqual(WORDS.slice(2));
    expect(rest.at(-1)!.data).toBe("[DONE]");
    expect(upstreamCalls()).toBe(callsBefore + 1);
    const charged = await eventually(() => chargedTo(gw, key.id), (seen) => seen.requests > 0 && seen.tokens > 0);
    expect(charged.requests).toBe(1);
    // The prompt's tokens and the whole reply's, at the round prices, once.
    const [input, output] = [countTokens(TWENTY_CHUNKS), countTokens(WORDS.join(""))];
    expect(charged.tokens).toBe(input + output);
    expect(charged.cost).toBeCloseTo(input * 0.01 + output * 0.02, 10);
    // The request's log row names the stream and says it was resumed once.
    const row = await eventually(
      async () => (await (await gw.admin(`/api/logs?virtual_key_ids=${key.id}`)).json()) as { logs: Array<{ metadata: Record<string, string> }> },
      (found) => found.logs[0]?.metadata.gw_stream_resumes === "1",
      10_000,
    );
    expect(row.logs).toHaveLength(1);
    expect(row.logs[0]!.metadata).toMatchObject({ gw_stream_id: id, gw_stream_resumes: "1" });
  });

  test("the openai SDK reads the first response and the resumed one as chat chunks", async () => {
    const key = await createVirtualKey(gw, { name: "sdk-reader" });
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key.value });
    const held = upstream.holdNextStream();
    const opened = client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: TWENTY_CHUNKS }], stream: true }, { headers: { "x-gw-resumable": "true" } }).withResponse();
    await held.arrived;
    held.release(3);
    const { data: stream, response } = await opened;
    const id = response.headers.get("x-gw-stream-id")!;
    const seen: string[] = [];
    for await (const chunk of stream) {
      seen.push(chunk.choices[0]?.delta.content ?? "");
      if (seen.length === 3) break;
    }
    held.release(100);
    const resumed = Stream.fromSSEResponse<ChatCompletionChunk>(await resume(gw, key.value, id, "?after=3"), new AbortController(), client);
    for await (const chunk of resumed) seen.push(chunk.choices[0]?.delta.content ?? "");
    expect(seen.join("")).toBe(WORDS.join(""));
    expect(seen).toHaveLength(20);
  });

  test("Last-Event-ID resumes after the event it names", async () => {
    const key = await createVirtualKey(gw, { name: "last-event-id" });
    const response = await resumableChat(gw, key.value);
    const id = response.headers.get("x-gw-stream-id")!;
    const all = await new SseReader(response.body!).rest();
    expectIdsFrom(all, 1, 21);
    const resumed = await new SseReader((await resume(gw, key.value, id, "", { "last-event-id": "17" })).body!).rest();
    expectIdsFrom(resumed, 18, 21);
    expect(resumed.map((event) => event.data)).toEqual(all.slice(17).map((event) => event.data));
  });

  test("two readers follow one stream live, each getting every event once", async () => {
    const key = await createVirtualKey(gw, { name: "two-readers", ...METERED });
    const held = upstream.holdNextStream();
    const opened = resumableChat(gw, key.value);
    await held.arrived;
    held.release(1);
    const response = await opened;
    const id = response.headers.get("x-gw-stream-id")!;
    const readers = await Promise.all([resume(gw, key.value, id, "?after=0"), resume(gw, key.value, id, "?after=0")]);
    held.release(100);
    const [original, one, two] = await Promise.all([response, ...readers].map((reader) => new SseReader(reader.body!).rest())) as [ReadEvent[], ReadEvent[], ReadEvent[]];
    for (const events of [original, one, two]) expectIdsFrom(events, 1, 21);
    expect(one.map((event) => event.data)).toEqual(original.map((event) => event.data));
    expect(two.map((event) => event.data)).toEqual(original.map((event) => event.data));
    const charged = await eventually(() => chargedTo(gw, key.id), (seen) => seen.requests > 0);
    expect(charged.requests).toBe(1);
  });

  test("DELETE cancels the upstream call; readers get what was stored, then an error event", async () => {
    const key = await createVirtualKey(gw, { name: "cancelled", ...METERED });
    const held = upstream.holdNextStream();
    const opened = resumableChat(gw, key.value);
    await held.arrived;
    held.release(4);
    const response = await opened;
    const id = response.headers.get("x-gw-stream-id")!;
    const original = new SseReader(response.body!);
    expectIdsFrom(await original.take(4), 1, 4);
    const cancelled = await fetch(`${gw.url}/v1/streams/${id}`, { method: "DELETE", headers: { "x-gw-vk": key.value } });
    expect(cancelled.status).toBe(200);
    const view = (await cancelled.json()) as { status: string; events: number };
    expect(view.status).toBe("cancelled");
    await held.cancelled;
    const ending = await original.rest();
    expect(ending.at(-1)!.data).toContain("cancelled");
    const replayed = await new SseReader((await resume(gw, key.value, id, "?after=2")).body!).rest();
    expectIdsFrom(replayed.slice(0, 2), 3, 4);
    expect(replayed).toHaveLength(3);
    expect(JSON.parse(replayed[2]!.data).error.message).toContain("cancelled");
    const charged = await eventually(() => chargedTo(gw, key.id), (seen) => seen.requests > 0 && seen.tokens > 0, TOKENIZER_LOAD_MS);
    expect(charged.requests).toBe(1);
    expect(charged.tokens).toBeGreaterThan(0);
  }, TOKENIZER_LOAD_MS + 5_000);

  test("a stream past its size bound goes on for its client, keeps no more and ends failed for a reader", async () => {
    const key = await createVirtualKey(gw, { name: "too-large" });
    const prompt = Array.from({ length: 200 }, (_, index) => `word${index}`).join(" ");
    const response = await resumableChat(gw, key.value, { messages: [{ role: "user", content: prompt }] });
    const id = response.headers.get("x-gw-stream-id")!;
    const original = await new SseReader(response.body!).rest();
    // The client that was there got the whole reply.
    expect(original.map(contentOf).join("")).toBe(`echo: ${prompt}`);
    expect(original.at(-1)!.data).toBe("[DONE]");
    const replayed = await new SseReader((await resume(gw, key.value, id)).body!).rest();
    const bytes = replayed.slice(0, -1).reduce((sum, event) => sum + Buffer.byteLength(`data: ${event.data}`), 0);
    expect(bytes).toBeLessThanOrEqual(16_384);
    expect(replayed.length).toBeLessThan(original.length);
    expect(JSON.parse(replayed.at(-1)!.data).error.message).toContain("16384 bytes");
  });

  test("an Anthropic message stream and a Responses stream resume in their own formats", async () => {
    const key = await createVirtualKey(gw, { name: "other-formats" });
    const calls = [
      { path: "/anthropic/v1/messages", body: { model: "openai/gpt-4o-mini", max_tokens: 100, messages: [{ role: "user", content: TWENTY_CHUNKS }], stream: true }, last: "message_stop" },
      { path: "/v1/responses", body: { model: "openai/gpt-4o-mini", input: TWENTY_CHUNKS, stream: true }, last: "response.completed" },
    ];
    for (const { path, body, last } of calls) {
      const response = await fetch(`${gw.url}${path}`, { method: "POST", headers: { "content-type": "application/json", "x-gw-vk": key.value, "x-gw-resumable": "true" }, body: JSON.stringify(body) });
      const id = response.headers.get("x-gw-stream-id")!;
      const all = await new SseReader(response.body!).rest();
      expect(all.at(-1)!.event).toBe(last);
      const resumed = await new SseReader((await resume(gw, key.value, id, "?after=2")).body!).rest();
      expectIdsFrom(resumed, 3, all.length);
      expect(resumed.map(({ event, data }) => ({ event, data }))).toEqual(all.slice(2).map(({ event, data }) => ({ event, data })));
    }
  });

  test("only the virtual key that started a stream reads or cancels it", async () => {
    const owner = await createVirtualKey(gw, { name: "owner" });
    const other = await createVirtualKey(gw, { name: "other" });
    const response = await resumableChat(gw, owner.value);
    const id = response.headers.get("x-gw-stream-id")!;
    await response.text();
    const read = await resume(gw, other.value, id);
    expect(read.status).toBe(404);
    expect(((await read.json()) as { error: { code: string } }).error.code).toBe("caller_stream_not_found");
    expect((await fetch(`${gw.url}/v1/streams/${id}`, { method: "DELETE", headers: { "x-gw-vk": other.value } })).status).toBe(404);
    expect((await fetch(`${gw.url}/v1/streams/${id}`)).status).toBe(404);
    expect((await resume(gw, owner.value, id)).status).toBe(200);
  });

  test("a virtual key with resumable_streams keeps every stream of its own, unless a call says x-gw-resumable: false", async () => {
    const key = await createVirtualKey(gw, { name: "always-resumable", resumable_streams: true });
    const viewed = (await (await gw.admin(`/api/governance/virtual-keys/${key.id}`)).json()) as { virtual_key: { resumable_streams: boolean } };
    expect(viewed.virtual_key.resumable_streams).toBe(true);
    const chat = (headers: Record<string, string>) =>
      fetch(`${gw.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-gw-vk": key.value, ...headers },
        body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: TWENTY_CHUNKS }], stream: true }),
      });
    const kept = await chat({});
    const id = kept.headers.get("x-gw-stream-id")!;
    expectIdsFrom(await new SseReader(kept.body!).rest(), 1, 21);
    expectIdsFrom(await new SseReader((await resume(gw, key.value, id, "?after=20")).body!).rest(), 21, 21);
    const optedOut = await chat({ "x-gw-resumable": "false" });
    expect(optedOut.headers.get("x-gw-stream-id")).toBeNull();
    await optedOut.text();
  });

  test("a stream that did not ask is not kept, and a wrong x-gw-resumable is refused naming the header", async () => {
    const key = await createVirtualKey(gw, { name: "not-asked" });
    const plain = await resumableChat(gw, key.value, {}, { headers: { "x-gw-resumable": "false" } });
    expect(plain.headers.get("x-gw-stream-id")).toBeNull();
    expect(await plain.text()).not.toContain("id: ");
    const wrong = await resumableChat(gw, key.value, {}, { headers: { "x-gw-resumable": "maybe" } });
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { error: { param: string } }).error.param).toBe("x-gw-resumable");
    const kept = await resumableChat(gw, key.value);
    const id = kept.headers.get("x-gw-stream-id")!;
    await kept.text();
    const badAfter = await resume(gw, key.value, id, "?after=-1");
    expect(badAfter.status).toBe(400);
    expect(JSON.stringify(await badAfter.json())).toContain("after");
    const badLastEventId = await resume(gw, key.value, id, "", { "last-event-id": "three" });
    expect(badLastEventId.status).toBe(400);
    expect(((await badLastEventId.json()) as { error: { param: string } }).error.param).toBe("Last-Event-ID");
  });

  // Last: it restarts the gateway.
  test("a gateway stopped with a stream open fails it; after the restart its stored events are read, then the error", async () => {
    const key = await createVirtualKey(gw, { name: "stopped-midway" });
    const held = upstream.holdNextStream();
    const opened = resumableChat(gw, key.value);
    await held.arrived;
    held.release(3);
    const response = await opened;
    const id = response.headers.get("x-gw-stream-id")!;
    const before = await new SseReader(response.body!).take(3);
    await gw.stop();
    await held.cancelled;
    // The new gateway's close deletes the database both share.
    gw = await gw.restart();
    const replayed = await new SseReader((await resume(gw, key.value, id)).body!).rest();
    expect(replayed.slice(0, 3).map((event) => event.data)).toEqual(before.map((event) => event.data));
    expect(replayed).toHaveLength(4);
    expect(JSON.parse(replayed[3]!.data).error.message).toContain("was stopped before the stream ended");
  }, 30_000);
});

describe("a reader that does not read", () => {
  test("is dropped with an error event once it is max_reader_lag_bytes behind, while the client that reads gets the whole reply", async () => {
    const key = await createVirtualKey(gw, { name: "slow-reader" });
    // 64 words of 128 KiB: each a chunk, 8 MiB in all, twice what the connection's buffers took for a reader that stopped (~4 MiB).
    // Short pieces (`ab.`), not one run of a letter, which token counting would take seconds over.
    const prompt = Array.from({ length: 64 }, (_, index) => `${index}`.padEnd(128 * 1024, "ab.")).join(" ");
    const held = upstream.holdNextStream();
    const opened = resumableChat(gw, key.value, { messages: [{ role: "user", content: prompt }] });
    await held.arrived;
    held.release(1);
    const response = await opened;
    const id = response.headers.get("x-gw-stream-id")!;
    const slow = await pausedReader(gw, key.value, id);
    // One event at a time, each read before the next is let out: the client that reads never
    // has more than one event waiting, however fast the upstream would have sent them.
    const reading = new SseReader(response.body!);
    const original = [];
    for (let event = await reading.next(); event; event = await reading.next()) {
      original.push(event);
      // Past the 64 large chunks, the small closing events go out together.
      held.release(original.length > 64 ? 10 : 1);
    }
    // Compared as a boolean: a failing diff of 8 MiB strings would take minutes to print.
    expect(original.map(contentOf).join("") === `echo: ${prompt}`).toBe(true);
    const text = await slow.readToEnd();
    // Its last event says why it ended.
    expect(text.slice(-1000)).toContain("fell more than 32768 bytes behind the stream and was dropped");
    // It got fewer bytes than the reply: what it left unread was let go, not kept for it.
    expect(text.length).toBeLessThan(prompt.length);
  }, 60_000);
});
