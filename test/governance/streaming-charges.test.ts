import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { eventually } from "../support/eventually";
import { created, createVirtualKey, openAIProvider } from "./support";

const PRICE = { input_cost_per_token: 0.01, output_cost_per_token: 0.02 };
/** An estimate loads the tokenizer on first use, which takes seconds on a busy machine. */
const TOKENIZER_LOAD_MS = 15_000;

let upstream: MockOpenAI;
let gw: TestGateway;

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({ providers: { openai: openAIProvider(upstream) } });
  await created(gw, "/api/governance/pricing-overrides", { name: "round prices", pattern: "gpt-4o-mini", patch: PRICE });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

interface Usage {
  cost: number;
  tokens: number;
  requests: number;
}

async function usageOf(keyId: string): Promise<Usage> {
  const { budgets } = (await (await gw.admin("/api/governance/budgets")).json()) as { budgets: Array<{ owner_id: string; current_usage: number }> };
  const { rate_limits } = (await (await gw.admin("/api/governance/rate-limits")).json()) as { rate_limits: Array<{ owner_id: string; token_current_usage: number; request_current_usage: number }> };
  const limits = rate_limits.find((row) => row.owner_id === keyId)!;
  return { cost: budgets.find((row) => row.owner_id === keyId)!.current_usage, tokens: limits.token_current_usage, requests: limits.request_current_usage };
}

const meteredKey = (name: string) =>
  createVirtualKey(gw, {
    name,
    budgets: [{ max_limit: 100, reset_duration: "1d" }],
    rate_limit: { token_max_limit: 100_000, token_reset_duration: "1d", request_max_limit: 100, request_reset_duration: "1d" },
  });

function streamChat(key: string, body: Record<string, unknown>, signal?: AbortSignal) {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-gw-vk": key },
    body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "one two three" }], stream: true, ...body }),
    signal,
  });
}

describe("a streamed response is charged when it ends", () => {
  test("with the usage the provider reports in its last chunk", async () => {
    const key = await meteredKey("streamed-to-the-end");
    const response = await streamChat(key.value, { stream_options: { include_usage: true } });
    expect(await response.text()).toContain("data: [DONE]");
    const usage = await eventually(() => usageOf(key.id), (seen) => seen.tokens > 0);
    expect(usage.tokens).toBe(7);
    expect(usage.cost).toBeCloseTo(3 * 0.01 + 4 * 0.02, 10);
  });

  test("a client that did not ask for usage is charged the provider's count", async () => {
    const key = await meteredKey("usage-not-asked");
    const response = await streamChat(key.value, {});
    expect(await response.text()).toContain("data: [DONE]");
    const usage = await eventually(() => usageOf(key.id), (seen) => seen.tokens > 0);
    expect(usage.tokens).toBe(7);
    expect(usage.cost).toBeCloseTo(3 * 0.01 + 4 * 0.02, 10);
  });

  test("from a provider that sends no usage chunk, an estimate of the text sent and received is charged", async () => {
    const key = await meteredKey("streamed-without-usage");
    upstream.streamUsage = "never";
    const response = await streamChat(key.value, {}).finally(() => (upstream.streamUsage = "when-asked"));
    expect(await response.text()).toContain("data: [DONE]");
    const usage = await eventually(() => usageOf(key.id), (seen) => seen.tokens > 0, TOKENIZER_LOAD_MS);
    expect(usage.tokens).toBeGreaterThanOrEqual(7);
    expect(usage.cost).toBeGreaterThanOrEqual(usage.tokens * 0.01 - 1e-9);
    expect(usage.cost).toBeLessThanOrEqual(usage.tokens * 0.02 + 1e-9);
  }, TOKENIZER_LOAD_MS + 5_000);

  test("an image's base64 is not counted as text in the estimate", async () => {
    const key = await meteredKey("image-without-usage");
    const image = `data:image/png;base64,${Buffer.from(Array.from({ length: 45_000 }, (_, index) => (index * 13) % 256)).toString("base64")}`;
    upstream.streamUsage = "never";
    const response = await streamChat(key.value, { messages: [{ role: "user", content: [{ type: "text", text: "one two three" }, { type: "image_url", image_url: { url: image } }] }] }).finally(() => (upstream.streamUsage = "when-asked"));
    expect(await response.text()).toContain("data: [DONE]");
    const usage = await eventually(() => usageOf(key.id), (seen) => seen.tokens > 0, TOKENIZER_LOAD_MS);
    // The text sent and received ("one two three", "echo: one two three"): a dozen tokens, not the ~40,000 of the base64.
    expect(usage.tokens).toBeGreaterThanOrEqual(7);
    expect(usage.tokens).toBeLessThan(50);
  }, TOKENIZER_LOAD_MS + 5_000);

  test("also when the client disconnects mid-stream", async () => {
    const key = await meteredKey("left-early");
    const held = upstream.holdNextStream();
    const client = new AbortController();
    const opened = streamChat(key.value, { stream_options: { include_usage: true } }, client.signal);
    await held.arrived;
    // Bun sends response headers with the first body bytes: the role chunk and "echo: " open it.
    held.release(2);
    const reader = (await opened).body!.getReader();
    let seen = "";
    while (!seen.includes("echo")) seen += new TextDecoder().decode((await reader.read()).value);
    client.abort();
    await held.cancelled;
    const usage = await eventually(() => usageOf(key.id), (charged) => charged.tokens > 0, TOKENIZER_LOAD_MS);
    expect(usage.requests).toBe(1);
    expect(usage.tokens).toBeGreaterThan(0);
    expect(usage.cost).toBeGreaterThanOrEqual(usage.tokens * 0.01 - 1e-9);
    expect(usage.cost).toBeLessThanOrEqual(usage.tokens * 0.02 + 1e-9);
  }, TOKENIZER_LOAD_MS + 5_000);
});
