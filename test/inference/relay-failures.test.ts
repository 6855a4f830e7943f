import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { startGateway, type TestGateway } from "../support/gateway";
import { loggedRequest } from "../support/logged-request";
import { startMockAnthropic, type MockAnthropic } from "../support/mock-anthropic";
import { type MockGemini, startMockGemini } from "../support/mock-gemini";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

// Failures of the same-format path, where the provider's bytes are relayed as they come: each is
// the provider's failure as the client's SDK raises it, and a log row that says so.

const ANTHROPIC_KEY = "sk-ant-relay";
let openaiUpstream: MockOpenAI;
let anthropicUpstream: MockAnthropic;
let geminiUpstream: MockGemini;
let gw: TestGateway;
let openai: OpenAI;
let anthropic: Anthropic;
let genai: GoogleGenAI;

const openaiLike = (network: Record<string, unknown>) => ({
  custom_provider_config: { base_provider_type: "openai" },
  keys: [{ id: `key-${Object.keys(network).join("-")}`, value: "sk-relay" }],
  network_config: { base_url: openaiUpstream.baseUrl, ...network },
});

beforeAll(async () => {
  openaiUpstream = startMockOpenAI();
  anthropicUpstream = startMockAnthropic(ANTHROPIC_KEY);
  geminiUpstream = startMockGemini();
  gw = await startGateway({
    providers: {
      openai: { keys: [{ id: "k", value: "sk-k" }], network_config: { base_url: openaiUpstream.baseUrl } },
      anthropic: { keys: [{ id: "a", value: ANTHROPIC_KEY }], network_config: { base_url: anthropicUpstream.baseUrl } },
      gemini: { keys: [{ id: "g", value: geminiUpstream.apiKey }], network_config: { base_url: geminiUpstream.geminiBaseUrl } },
      retrying: openaiLike({ max_retries: 1, retry_backoff_initial: 0 }),
      "idle-one-second": openaiLike({ stream_idle_timeout_in_seconds: 1 }),
      "timeout-one-second": openaiLike({ default_request_timeout_in_seconds: 1 }),
    },
  });
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: `${gw.url}/anthropic`, apiKey: "unused", maxRetries: 0 });
  genai = new GoogleGenAI({ apiKey: "unused", httpOptions: { baseUrl: `${gw.url}/genai` } });
});
afterEach(() => {
  openaiUpstream.faults.length = 0;
  anthropicUpstream.faults.length = 0;
});
afterAll(async () => {
  await gw.close();
  openaiUpstream.stop();
  anthropicUpstream.stop();
  geminiUpstream.stop();
});

const tagged = (testCase: string) => ({ headers: { "x-gw-metadata-case": testCase } });
const failureOf = (run: () => Promise<unknown>) => run().then(
  () => undefined,
  (thrown: unknown) => thrown,
);

/** Reads a stream through the SDK to its end: what arrived, and what it raised. */
async function drained<T>(stream: AsyncIterable<T>): Promise<{ items: T[]; error: unknown }> {
  const items: T[] = [];
  try {
    for await (const item of stream) items.push(item);
    return { items, error: undefined };
  } catch (error) {
    return { items, error };
  }
}

describe("a 2xx that is not the provider's format", () => {
  test("an HTML page answered 200 as JSON is a 502 provider_bad_response the SDK raises, logged as an error", async () => {
    openaiUpstream.faults.push({ kind: "body", body: "<html>oops</html>", contentType: "application/json" });
    const error = await failureOf(() => openai.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }, tagged("html-200")));
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((error as Error).message).toContain("not a valid openai-format reply");
    expect(await loggedRequest(gw, "html-200")).toMatchObject({ status: "error", status_code: 502, error_type: "provider_bad_response" });
  });

  test("a streamed call answered 200 with a page instead of events is the same 502, not a stream that ends empty", async () => {
    openaiUpstream.faults.push({ kind: "body", body: "<html>oops</html>", contentType: "text/html" });
    const error = await failureOf(async () => {
      for await (const _ of await openai.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }], stream: true }, tagged("html-stream"))) void _;
    });
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect(await loggedRequest(gw, "html-stream")).toMatchObject({ status: "error", status_code: 502, error_type: "provider_bad_response" });
  });

  test("it is a failed attempt: retried like a 5xx, so the next answer reaches the client", async () => {
    openaiUpstream.faults.push({ kind: "body", body: "<html>oops</html>", contentType: "application/json" });
    const completion = await openai.chat.completions.create({ model: "retrying/gpt-4o-mini", messages: [{ role: "user", content: "second time" }] }, tagged("html-retried"));
    expect(completion.choices[0]!.message.content).toBe("echo: second time");
    const row = await loggedRequest(gw, "html-retried");
    expect(row).toMatchObject({ status: "success", status_code: 200 });
    expect((row.attempts as Array<{ error_type?: string }>)[0]).toMatchObject({ error_type: "provider_bad_response" });
  });

  test("a chat reply that is JSON but no chat completion (an error object in a 200) goes to the fallback", async () => {
    openaiUpstream.faults.push({ kind: "body", body: JSON.stringify({ error: { message: "busy" } }), contentType: "application/json" });
    const completion = await openai.chat.completions.create(
      { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "fall back" }], fallbacks: ["anthropic/claude-sonnet-4-5"] } as OpenAI.ChatCompletionCreateParamsNonStreaming,
      tagged("error-object-200"),
    );
    expect(completion.choices[0]!.message.content).toContain("fall back");
    expect(await loggedRequest(gw, "error-object-200")).toMatchObject({ status: "success", provider: "anthropic" });
  });

  test("an Anthropic client gets the Anthropic SDK's error for an Anthropic upstream's HTML 200", async () => {
    anthropicUpstream.faults.push({ kind: "body", body: "<html>bad gateway</html>", contentType: "text/html" });
    const error = await failureOf(() => anthropic.messages.create({ model: "anthropic/claude-sonnet-4-5", max_tokens: 50, messages: [{ role: "user", content: "hi" }] }, tagged("anthropic-html")));
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(502);
    expect(await loggedRequest(gw, "anthropic-html")).toMatchObject({ status: "error", error_type: "provider_bad_response" });
  });
});

describe("a stream the provider breaks", () => {
  test("an OpenAI chat stream cut midway ends with an error event the SDK raises as an APIError, logged as an error", async () => {
    openaiUpstream.faults.push({ kind: "drop-mid-stream" });
    const stream = await openai.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "a b c d e f g h" }], stream: true }, tagged("openai-cut"));
    const { items, error } = await drained(stream);
    expect(items.length).toBeGreaterThan(0);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as Error).message).toContain("broke off");
    expect(await loggedRequest(gw, "openai-cut")).toMatchObject({ status: "error", status_code: 200, error_type: "provider_stream_error" });
  });

  test("a Responses stream cut midway ends with the Responses API's error event", async () => {
    openaiUpstream.faults.push({ kind: "drop-mid-stream" });
    const stream = await openai.responses.create({ model: "openai/gpt-4o-mini", input: "one two three", stream: true }, tagged("responses-cut"));
    const { error } = await drained(stream);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as Error).message).toContain("broke off");
    expect(await loggedRequest(gw, "responses-cut")).toMatchObject({ status: "error", error_type: "provider_stream_error" });
  });

  test("an Anthropic stream cut midway ends with Anthropic's error event, logged as an error", async () => {
    anthropicUpstream.faults.push({ kind: "drop-mid-stream" });
    const stream = anthropic.messages.stream({ model: "anthropic/claude-sonnet-4-5", max_tokens: 100, messages: [{ role: "user", content: "one two three four" }] }, tagged("anthropic-cut"));
    const error = await failureOf(() => stream.finalMessage());
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(error).not.toBeInstanceOf(Anthropic.APIConnectionError);
    expect(await loggedRequest(gw, "anthropic-cut")).toMatchObject({ status: "error", error_type: "provider_stream_error" });
  });

  test("a Gemini stream cut midway ends with Gemini's error chunk, which @google/genai raises", async () => {
    geminiUpstream.cutNextStream = true;
    const stream = await genai.models.generateContentStream({ model: "gemini/gemini-2.0-flash", contents: "one two three", config: { httpOptions: { headers: { "x-gw-metadata-case": "gemini-cut" } } } });
    // (The SDK may raise the error chunk before yielding the event that came with it.)
    const { error } = await drained(stream);
    expect((error as Error | undefined)?.message).toContain("broke off");
    expect(await loggedRequest(gw, "gemini-cut")).toMatchObject({ status: "error", error_type: "provider_stream_error" });
  });

  test("a translated stream cut midway (OpenAI upstream, Anthropic client) is logged as an error too", async () => {
    openaiUpstream.faults.push({ kind: "drop-mid-stream" });
    const stream = anthropic.messages.stream({ model: "openai/gpt-4o-mini", max_tokens: 100, messages: [{ role: "user", content: "one two three four" }] }, tagged("translated-cut"));
    expect(await failureOf(() => stream.finalMessage())).toBeInstanceOf(Anthropic.APIError);
    expect(await loggedRequest(gw, "translated-cut")).toMatchObject({ status: "error", status_code: 200, error_type: "provider_stream_error" });
  });
});

/** The stall tests wait out real one-second timeouts: room for a loaded machine. */
const WAITS_OUT_TIMEOUTS = { timeout: 15_000 };

describe("a stream that stalls", () => {
  /** A stream whose upstream sends its first event, then nothing: the gateway must end it. */
  async function stalledStream(model: string, testCase: string) {
    const held = openaiUpstream.holdNextStream();
    const opening = openai.chat.completions.create({ model, messages: [{ role: "user", content: "then silence" }], stream: true }, tagged(testCase));
    await held.arrived;
    held.release();
    const startedAt = performance.now();
    const { items, error } = await drained(await opening);
    return { items, error, waitedMs: performance.now() - startedAt, held };
  }

  test("stream_idle_timeout_in_seconds ends a silent stream with a timeout error event, lets the upstream go, and logs a timeout", async () => {
    const { items, error, waitedMs, held } = await stalledStream("idle-one-second/gpt-4o-mini", "idle-stall");
    expect(items).toHaveLength(1);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as Error).message).toContain("sent nothing for 1s");
    expect(waitedMs).toBeLessThan(5000);
    await held.cancelled;
    expect(await loggedRequest(gw, "idle-stall")).toMatchObject({ status: "error", status_code: 200, error_type: "provider_timeout" });
  }, WAITS_OUT_TIMEOUTS);

  test("without it, the provider's request timeout bounds the silence", async () => {
    const { error, waitedMs } = await stalledStream("timeout-one-second/gpt-4o-mini", "request-timeout-stall");
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(waitedMs).toBeLessThan(5000);
    expect(await loggedRequest(gw, "request-timeout-stall")).toMatchObject({ status: "error", error_type: "provider_timeout" });
  }, WAITS_OUT_TIMEOUTS);

  test("a translated stream that stalls ends with the client format's timeout error", async () => {
    const held = openaiUpstream.holdNextStream();
    const stream = anthropic.messages.stream({ model: "idle-one-second/gpt-4o-mini", max_tokens: 100, messages: [{ role: "user", content: "then silence" }] }, tagged("translated-stall"));
    await held.arrived;
    held.release();
    const error = await failureOf(() => stream.finalMessage());
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as Error).message).toContain("timeout_error");
    expect(await loggedRequest(gw, "translated-stall")).toMatchObject({ status: "error", error_type: "provider_timeout" });
  }, WAITS_OUT_TIMEOUTS);

  test("a stream that keeps sending is not cut, however long it runs in all", async () => {
    const held = openaiUpstream.holdNextStream();
    const opening = openai.chat.completions.create({ model: "idle-one-second/gpt-4o-mini", messages: [{ role: "user", content: "one two three" }], stream: true });
    await held.arrived;
    held.release();
    const chunks = (await opening)[Symbol.asyncIterator]();
    let content = "";
    // Each event comes well inside the idle timeout; together they take longer than it.
    for (let index = 0; index < 4; index++) {
      await Bun.sleep(400);
      held.release();
      content += (await chunks.next()).value?.choices[0]?.delta.content ?? "";
    }
    held.release(10);
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) content += next.value.choices[0]?.delta.content ?? "";
    expect(content).toBe("echo: one two three");
  }, WAITS_OUT_TIMEOUTS);
});
