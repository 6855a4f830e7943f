import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { expectGatewayError, postJson } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, type RecordedRequest, startMockOpenAI } from "../support/mock-openai";

let upstream: MockOpenAI;
let gw: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({ providers: { openai: { keys: [{ id: "k", value: "sk-k" }], network_config: { base_url: upstream.baseUrl } } } });
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
});
afterEach(() => {
  upstream.faults.length = 0;
  upstream.onRequest = undefined;
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

/** A test that waits on an event that never comes fails here instead of at the suite's timeout. */
const FAST_FAIL = { timeout: 5000 };

function aborted({ signal }: RecordedRequest): Promise<void> {
  if (!signal) throw new Error("the mock records no request signal");
  return new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve(), { once: true })));
}

describe("streaming is pass-through as chunks arrive", () => {
  test(
    "each chat chunk reaches the SDK while the upstream still holds back the rest",
    async () => {
      const held = upstream.holdNextStream();
      const opened = client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "one two" }], stream: true });
      await held.arrived;
      // Bun sends response headers with the first body bytes, so the first event opens the stream.
      held.release();
      const chunks = (await opened)[Symbol.asyncIterator]();
      // The reply is "echo: one two": a role chunk, "echo: ", "one ", "two", a finish chunk, usage, [DONE].
      expect((await chunks.next()).value!.choices[0]!.delta.role).toBe("assistant");
      for (const word of ["echo: ", "one ", "two"]) {
        held.release();
        expect((await chunks.next()).value!.choices[0]!.delta.content).toBe(word);
      }
      held.release();
      expect((await chunks.next()).value!.choices[0]!.finish_reason).toBe("stop");
      // The usage chunk the gateway asked for (the client did not, so it never sees it), then [DONE].
      held.release(2);
      expect((await chunks.next()).done).toBe(true);
    },
    FAST_FAIL,
  );

  test(
    "responses API events pass through one by one",
    async () => {
      const held = upstream.holdNextStream();
      const opened = client.responses.create({ model: "openai/gpt-4o-mini", input: "hi", stream: true });
      await held.arrived;
      held.release();
      const events = (await opened)[Symbol.asyncIterator]();
      expect((await events.next()).value!.type).toBe("response.created");
      for (const type of ["response.output_item.added", "response.content_part.added", "response.output_text.delta"]) {
        held.release();
        expect((await events.next()).value!.type).toBe(type);
      }
      held.release(10);
      const rest: string[] = [];
      for (let next = await events.next(); !next.done; next = await events.next()) rest.push(next.value.type);
      expect(rest.at(-1)).toBe("response.completed");
    },
    FAST_FAIL,
  );

  test(
    "the raw byte stream carries the upstream's SSE frames as sent",
    async () => {
      const held = upstream.holdNextStream();
      const responsePromise = postJson(`${gw.url}/v1/chat/completions`, { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "raw" }], stream: true });
      await held.arrived;
      held.release();
      const response = await responsePromise;
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toContain("text/event-stream");
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = "";
      while (!text.endsWith("\n\n")) text += (await reader.read()).value;
      expect(text).toStartWith("data: ");
      expect(JSON.parse(text.slice("data: ".length)).object).toBe("chat.completion.chunk");
      held.release(100);
      while (!text.includes("data: [DONE]")) {
        const { value, done } = await reader.read();
        if (done) break;
        text += value;
      }
      expect(text).toEndWith("data: [DONE]\n\n");
    },
    FAST_FAIL,
  );
});

describe("a client that disconnects cancels the upstream request", () => {
  test(
    "aborting mid-stream cancels the upstream stream",
    async () => {
      const held = upstream.holdNextStream();
      const opened = client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "long story" }], stream: true });
      await held.arrived;
      held.release();
      const stream = await opened;
      await stream[Symbol.asyncIterator]().next();
      stream.controller.abort();
      await held.cancelled;
    },
    FAST_FAIL,
  );

  test(
    "aborting a raw fetch mid-stream cancels it too, and the gateway keeps serving",
    async () => {
      const held = upstream.holdNextStream();
      const controller = new AbortController();
      const opened = fetch(`${gw.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "abort me" }], stream: true }),
        signal: controller.signal,
      });
      await held.arrived;
      held.release();
      await (await opened).body!.getReader().read();
      controller.abort();
      await held.cancelled;
      const next = await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "still here" }] });
      expect(next.choices[0]!.message.content).toBe("echo: still here");
    },
    FAST_FAIL,
  );

  test(
    "a client that gives up before the upstream answers aborts the upstream call",
    async () => {
      const arrived = Promise.withResolvers<RecordedRequest>();
      const release = Promise.withResolvers<void>();
      upstream.onRequest = (request) => {
        arrived.resolve(request);
        return release.promise;
      };
      const controller = new AbortController();
      const pending = fetch(`${gw.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "slow" }] }),
        signal: controller.signal,
      }).catch((error: unknown) => error);
      const request = await arrived.promise;
      controller.abort();
      await aborted(request);
      release.resolve();
      expect(await pending).toBeInstanceOf(Error);
    },
    FAST_FAIL,
  );
});

describe("stream failures", () => {
  test("an upstream error before the stream starts is a JSON gateway error with the upstream's status", async () => {
    upstream.faults.push({ kind: "status", status: 429, headers: { "retry-after": "3" } });
    const response = await postJson(`${gw.url}/v1/chat/completions`, { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "x" }], stream: true });
    expect(response.headers.get("content-type")).toContain("application/json");
    expect((await expectGatewayError(response, 429, { errorType: "provider_rate_limited" })).extra_fields.retry_after_ms).toBe(3000);
  });

  test("an upstream that cuts the stream mid-way ends the client's stream with an error, not a clean finish", async () => {
    upstream.faults.push({ kind: "drop-mid-stream" });
    const stream = await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "a b c d e f g h" }], stream: true });
    const received: string[] = [];
    const outcome = await (async () => {
      for await (const chunk of stream) received.push(chunk.choices[0]?.finish_reason ?? "");
    })().then(
      () => "ended cleanly",
      () => "errored",
    );
    expect(outcome).toBe("errored");
    expect(received).not.toContain("stop");
  });
});
