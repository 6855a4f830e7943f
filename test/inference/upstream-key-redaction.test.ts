import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { createVirtualKey } from "../governance/support";
import { finishedJob, submittedJob } from "../support/async-jobs";
import { startGateway, type TestGateway } from "../support/gateway";
import { loggedRequest } from "../support/logged-request";
import { type MockAnthropic, startMockAnthropic } from "../support/mock-anthropic";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

const PROVIDER_KEY = "sk-proj-Redact3dProviderKeyValue0123456789";
/** A key whose URL-encoded and base64 spellings differ from it. */
const ANTHROPIC_KEY = "sk-ant-api03-Echo+Key/Val=ue_0123456789abcdef";

/** The spellings of a key an upstream may echo: as sent, upper-cased, URL-encoded, base64 alone and inside a Basic credential. */
const spellingsOf = (key: string) => [key, key.toUpperCase(), encodeURIComponent(key), btoa(key), btoa(`user:${key}`).slice(8, -8)];
const echoOf = (key: string) => `Incorrect API key provided: ${key} (as ${key.toUpperCase()}, ${encodeURIComponent(key)}, ${btoa(key)}, Basic ${btoa(`user:${key}`)})`;
const expectNoKey = (text: string, key: string) => {
  for (const spelling of spellingsOf(key)) expect(text).not.toContain(spelling);
};

let upstream: MockOpenAI;
let anthropicUpstream: MockAnthropic;
let gw: TestGateway;

beforeAll(async () => {
  upstream = startMockOpenAI();
  anthropicUpstream = startMockAnthropic(ANTHROPIC_KEY);
  gw = await startGateway({
    providers: {
      openai: { keys: [{ id: "live", value: PROVIDER_KEY, models: ["*"] }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } },
      anthropic: { keys: [{ id: "ant", value: ANTHROPIC_KEY, models: ["*"] }], network_config: { base_url: anthropicUpstream.baseUrl, max_retries: 0 } },
    },
  });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
  anthropicUpstream.stop();
});

const chat = (testCase: string, headers: Record<string, string> = {}) =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-gw-metadata-case": testCase, ...headers },
    body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
  });

describe("an upstream error that echoes a key reaches nobody with the key in it", () => {
  test("the provider key the attempt used is redacted from the client's error and the log's error_message", async () => {
    upstream.faults.push({ kind: "status", status: 401, message: `Incorrect API key provided: ${PROVIDER_KEY}. You can find your API key at https://platform.openai.com.` });
    const response = await chat("echoed-provider-key");
    expect(response.status).toBe(401);
    const text = await response.text();
    expect(text).toContain("Incorrect API key provided: [redacted]");
    expect(text).not.toContain(PROVIDER_KEY);
    const logged = await loggedRequest(gw, "echoed-provider-key");
    expect(logged.error_message).toContain("Incorrect API key provided: [redacted]");
    expect(JSON.stringify(logged)).not.toContain(PROVIDER_KEY);
  });

  test("a virtual key the upstream echoes is redacted as well", async () => {
    const key = await createVirtualKey(gw, { name: "echoed" });
    upstream.faults.push({ kind: "status", status: 400, message: `unexpected credential ${key.value} in the request` });
    const response = await chat("echoed-virtual-key", { "x-gw-vk": key.value });
    expect(response.status).toBe(400);
    const text = await response.text();
    expect(text).toContain("unexpected credential [redacted] in the request");
    expect(text).not.toContain(key.value);
    expect(JSON.stringify(await loggedRequest(gw, "echoed-virtual-key"))).not.toContain(key.value);
  });
});

describe("a stream that ends in an error event echoing the key reaches nobody with the key in it, in any spelling", () => {
  const openai = () => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
  const anthropic = () => new Anthropic({ baseURL: `${gw.url}/anthropic`, apiKey: "unused", maxRetries: 0 });

  /** Everything a stream gave before it failed, and the error it raised. */
  async function drained<T>(events: AsyncIterable<T>): Promise<{ seen: string; error: string }> {
    let seen = "";
    try {
      for await (const event of events) seen += JSON.stringify(event);
    } catch (error) {
      return { seen, error: String(error) };
    }
    return { seen, error: "" };
  }

  test("/v1 to OpenAI (the same format, relayed): the key cut in two across chunks, then in every spelling", async () => {
    for (const [testCase, message] of [["v1-split-key", `Incorrect API key provided: ${PROVIDER_KEY}`], ["v1-spelled-key", echoOf(PROVIDER_KEY)]] as const) {
      upstream.faults.push({ kind: "error-mid-stream", message });
      const stream = await openai().chat.completions.create({ model: "openai/gpt-4o-mini", stream: true, messages: [{ role: "user", content: "one two three four" }] }, { headers: { "x-gw-metadata-case": testCase } });
      const { seen, error } = await drained(stream);
      expect(seen).toContain("one");
      expect(error).toContain("Incorrect API key provided: [redacted]");
      expectNoKey(error, PROVIDER_KEY);
      const logged = await loggedRequest(gw, testCase);
      expect(logged).toMatchObject({ status: "error", error_type: "provider_stream_error" });
      expect(logged.error_message).toContain("[redacted]");
      expectNoKey(JSON.stringify(logged), PROVIDER_KEY);
    }
  });

  test("/v1 to OpenAI read raw: no byte of the stream carries the key", async () => {
    upstream.faults.push({ kind: "error-mid-stream", message: echoOf(PROVIDER_KEY) });
    const response = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-gw-metadata-case": "v1-raw" },
      body: JSON.stringify({ model: "openai/gpt-4o-mini", stream: true, messages: [{ role: "user", content: "one two three four" }] }),
    });
    const text = await response.text();
    expect(text).toContain("Incorrect API key provided: [redacted]");
    expectNoKey(text, PROVIDER_KEY);
  });

  test("/anthropic to Anthropic (the same format, relayed), with the Anthropic SDK", async () => {
    anthropicUpstream.faults.push({ kind: "error-mid-stream", message: echoOf(ANTHROPIC_KEY) });
    const stream = anthropic().messages.stream({ model: "anthropic/claude-sonnet-5-5", max_tokens: 100, messages: [{ role: "user", content: "one two three four" }] }, { headers: { "x-gw-metadata-case": "anthropic-same" } });
    const { seen, error } = await drained(stream);
    expect(seen).toContain("content_block_delta");
    expect(error).toContain("Incorrect API key provided: [redacted]");
    expectNoKey(error, ANTHROPIC_KEY);
    const logged = await loggedRequest(gw, "anthropic-same");
    expect(logged.error_message).toContain("[redacted]");
    expectNoKey(JSON.stringify(logged), ANTHROPIC_KEY);
  });

  test("translated both ways: /anthropic to OpenAI and /v1 to Anthropic", async () => {
    upstream.faults.push({ kind: "error-mid-stream", message: echoOf(PROVIDER_KEY) });
    const toOpenAI = await drained(anthropic().messages.stream({ model: "openai/gpt-4o-mini", max_tokens: 100, messages: [{ role: "user", content: "one two three four" }] }, { headers: { "x-gw-metadata-case": "anthropic-to-openai" } }));
    expect(toOpenAI.error).toContain("[redacted]");
    expectNoKey(toOpenAI.error, PROVIDER_KEY);
    expectNoKey(JSON.stringify(await loggedRequest(gw, "anthropic-to-openai")), PROVIDER_KEY);

    anthropicUpstream.faults.push({ kind: "error-mid-stream", message: echoOf(ANTHROPIC_KEY) });
    const stream = await openai().chat.completions.create({ model: "anthropic/claude-sonnet-5-5", stream: true, messages: [{ role: "user", content: "one two three four" }] }, { headers: { "x-gw-metadata-case": "v1-to-anthropic" } });
    const toAnthropic = await drained(stream);
    expect(toAnthropic.error).toContain("[redacted]");
    expectNoKey(toAnthropic.error, ANTHROPIC_KEY);
    expectNoKey(JSON.stringify(await loggedRequest(gw, "v1-to-anthropic")), ANTHROPIC_KEY);
  });

  test("an error answer echoing the key in every spelling is redacted too", async () => {
    upstream.faults.push({ kind: "status", status: 401, message: echoOf(PROVIDER_KEY) });
    const response = await chat("sync-spelled-key");
    const text = await response.text();
    expect(text).toContain("Incorrect API key provided: [redacted]");
    expectNoKey(text, PROVIDER_KEY);
    expectNoKey(JSON.stringify(await loggedRequest(gw, "sync-spelled-key")), PROVIDER_KEY);
  });
});

describe("a relayed stream loses none of its own bytes to the redaction", () => {
  test("a stream whose last bytes could begin the key, but do not finish it, reaches the client whole", async () => {
    // The relay holds back a chunk's end while it could be the start of a key; at the stream's end that tail is sent as it came.
    const tail = `: ${PROVIDER_KEY.slice(0, 12)}`;
    const chunk = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 0, model: "gpt-4o-mini", choices: [{ index: 0, delta: { content: "hello" }, finish_reason: "stop" }] };
    upstream.faults.push({ kind: "body", contentType: "text/event-stream", body: `data: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n${tail}` });
    const response = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-gw-metadata-case": "v1-held-tail" },
      body: JSON.stringify({ model: "openai/gpt-4o-mini", stream: true, messages: [{ role: "user", content: "hi" }] }),
    });
    const text = await response.text();
    expect(text).toContain('"content":"hello"');
    expect(text.endsWith(tail)).toBe(true);
    expect((await loggedRequest(gw, "v1-held-tail")).status).toBe("success");
  });
});

describe("async job results hold no echoed key", () => {
  const request = { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] };

  test("a reply that echoes the key in its body, and a failure that echoes it in every spelling", async () => {
    const reply = { id: "chatcmpl-1", object: "chat.completion", created: 0, model: "gpt-4o-mini", choices: [{ index: 0, message: { role: "assistant", content: echoOf(PROVIDER_KEY) }, finish_reason: "stop" }] };
    upstream.faults.push({ kind: "body", contentType: "application/json", body: JSON.stringify(reply) });
    const answered = await finishedJob(gw, "chat/completions", (await submittedJob(gw, "chat/completions", request)).id);
    expect(JSON.stringify(answered.result)).toContain("Incorrect API key provided: [redacted]");
    expectNoKey(JSON.stringify(answered), PROVIDER_KEY);

    upstream.faults.push({ kind: "status", status: 401, message: echoOf(PROVIDER_KEY) });
    const failed = await finishedJob(gw, "chat/completions", (await submittedJob(gw, "chat/completions", request)).id);
    expect(failed.error?.error.message).toContain("[redacted]");
    expectNoKey(JSON.stringify(failed), PROVIDER_KEY);
  });
});
