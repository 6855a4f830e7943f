import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { startGateway, type TestGateway } from "../support/gateway";
import { eventually } from "../support/eventually";
import { loggedRequest } from "../support/logged-request";
import { expectGatewayError } from "../support/gateway-error";
import { type MockAnthropic, startMockAnthropic } from "../support/mock-anthropic";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { chat, created, createVirtualKey, openAIProvider } from "./support";

/** A cut stream has no usage: it is charged an estimate, and the tokenizer loads on first use. */
const TOKENIZER_LOAD_MS = 15_000;

let openaiUpstream: MockOpenAI;
let anthropicUpstream: MockAnthropic;
let gw: TestGateway;

beforeAll(async () => {
  openaiUpstream = startMockOpenAI();
  anthropicUpstream = startMockAnthropic("sk-ant-upstream");
  gw = await startGateway({
    providers: {
      openai: openAIProvider(openaiUpstream),
      anthropic: { keys: [{ id: "a1", value: "sk-ant-upstream" }], network_config: { base_url: anthropicUpstream.baseUrl } },
    },
  });
  await created(gw, "/api/governance/pricing-overrides", { name: "round prices", pattern: "gpt-4o-mini", patch: { input_cost_per_token: 0.01, output_cost_per_token: 0.02 } });
});
afterAll(async () => {
  await gw.close();
  openaiUpstream.stop();
  anthropicUpstream.stop();
});

interface SessionRow {
  session_id: string;
  cost: number;
  tokens: number;
  requests: number;
  exceeded: string | null;
}

async function sessionsOf(keyId: string): Promise<SessionRow[]> {
  const response = await gw.admin(`/api/governance/virtual-keys/${keyId}/sessions`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { sessions: SessionRow[] }).sessions;
}

const sessionOf = async (keyId: string, session: string) => (await sessionsOf(keyId)).find((row) => row.session_id === session);

/** What the key's own token limit was charged: every request of every session. */
async function keyTokens(keyId: string): Promise<number> {
  const { rate_limits } = (await (await gw.admin("/api/governance/rate-limits")).json()) as { rate_limits: Array<{ owner_id: string; token_current_usage: number }> };
  return rate_limits.find((row) => row.owner_id === keyId)!.token_current_usage;
}

/** Sixty words: an echo long enough to be cut halfway through. */
const LONG_PROMPT = Array.from({ length: 60 }, (_, index) => `word${index}`).join(" ");
const ECHO = `echo: ${LONG_PROMPT}`;

const sessionKey = (name: string, session_budgets: Record<string, number>) =>
  createVirtualKey(gw, { name, session_budgets, rate_limit: { token_max_limit: 1_000_000, token_reset_duration: "1d" } });

describe("a session past its budget", () => {
  test("gets 402 on its next request, while another session of the same key passes", async () => {
    const key = await sessionKey("per-run-tokens", { max_tokens: 7 });
    const run = (session: string) => chat(gw, key.value, {}, { "x-gw-session-id": session, "x-gw-metadata-case": `session-${session}` });
    // "one two three" and its echo: 7 tokens, the whole of run-a's budget.
    expect((await run("run-a")).status).toBe(200);
    await eventually(() => sessionOf(key.id, "run-a"), (row) => row?.tokens === 7);
    const refused = await expectGatewayError(await run("run-a"), 402, { errorType: "policy_session_budget_exceeded" });
    expect(refused.error.message).toContain("run-a");
    expect(refused.error.message).toContain("max_tokens");
    expect((await run("run-b")).status).toBe(200);
    expect(await loggedRequest(gw, "session-run-b")).toMatchObject({ conversation_id: "run-b" });
    const rows = await eventually(() => sessionsOf(key.id), (seen) => seen.length === 2);
    expect(rows).toEqual([
      { session_id: "run-b", cost: expect.any(Number), tokens: 7, requests: 1, last_request_at: expect.any(String), exceeded: "max_tokens" },
      { session_id: "run-a", cost: expect.any(Number), tokens: 7, requests: 1, last_request_at: expect.any(String), exceeded: "max_tokens" },
    ] as never);
  });

  test("the same through the OpenAI SDK, by cost, with the session named by the conversation's opening", async () => {
    const key = await sessionKey("per-run-cost", { max_cost: 0.1 });
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key.value, maxRetries: 0 });
    const ask = (opening: string) => client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: opening }] });
    // 3 tokens in at $0.01, 4 out at $0.02: $0.11, past $0.10.
    await ask("one two three");
    await eventually(() => sessionsOf(key.id), (rows) => rows[0]?.exceeded === "max_cost");
    const error = await ask("one two three").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(402);
    expect(await ask("four five six")).toMatchObject({ choices: [{ message: { content: "echo: four five six" } }] });
  });

  test("a key without session_budgets counts no sessions", async () => {
    const key = await createVirtualKey(gw, { name: "no-session-budgets" });
    expect((await chat(gw, key.value, {}, { "x-gw-session-id": "run-c" })).status).toBe(200);
    expect((await chat(gw, key.value, {}, { "x-gw-session-id": "run-c" })).status).toBe(200);
    expect(await sessionsOf(key.id)).toEqual([]);
  });
});

describe("a stream that crosses the session's budget", () => {
  test("ends with the OpenAI error event after the crossing chunk, charged for what was streamed", async () => {
    // The prompt alone is well inside; the whole echo is far past.
    const key = await sessionKey("stream-cut-openai", { max_tokens: 200 });
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key.value, maxRetries: 0, defaultHeaders: { "x-gw-session-id": "loop-1" } });
    const stream = await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: LONG_PROMPT }], stream: true, stream_options: { include_usage: true } });
    let text = "";
    const ended = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    })().catch((error: unknown) => error);
    expect(ended).toBeInstanceOf(OpenAI.APIError);
    expect(String((ended as Error).message)).toContain("loop-1");
    expect(text.length).toBeGreaterThan(0);
    expect(ECHO.startsWith(text)).toBe(true);
    expect(text.length).toBeLessThan(ECHO.length);
    const row = await eventually(() => sessionOf(key.id, "loop-1"), (seen) => seen !== undefined, TOKENIZER_LOAD_MS);
    expect(row!.exceeded).toBe("max_tokens");
    // Charged as much to the key as to the session, and less than the whole echo would have cost.
    expect(await keyTokens(key.id)).toBe(row!.tokens);
    const refused = await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "one two three" }] }).catch((error: unknown) => error);
    expect((refused as InstanceType<typeof OpenAI.APIError>).status).toBe(402);
  }, TOKENIZER_LOAD_MS + 5_000);

  test("ends with Anthropic's error event after the crossing chunk", async () => {
    const key = await sessionKey("stream-cut-anthropic", { max_tokens: 200 });
    const client = new Anthropic({ baseURL: `${gw.url}/anthropic`, apiKey: key.value, maxRetries: 0, defaultHeaders: { "x-claude-code-session-id": "claude-run" } });
    const stream = await client.messages.create({ model: "claude-3-5-sonnet-20241022", max_tokens: 1024, messages: [{ role: "user", content: LONG_PROMPT }], stream: true });
    let text = "";
    const ended = await (async () => {
      for await (const event of stream) if (event.type === "content_block_delta" && event.delta.type === "text_delta") text += event.delta.text;
    })().catch((error: unknown) => error);
    expect(ended).toBeInstanceOf(Anthropic.APIError);
    expect(String((ended as Error).message)).toContain("claude-run");
    expect(text.length).toBeGreaterThan(0);
    expect(text.length).toBeLessThan(ECHO.length);
    const row = await eventually(() => sessionOf(key.id, "claude-run"), (seen) => seen !== undefined, TOKENIZER_LOAD_MS);
    expect(row!.tokens).toBeGreaterThan(0);
    expect(await keyTokens(key.id)).toBe(row!.tokens);
  }, TOKENIZER_LOAD_MS + 5_000);

  test("ends a Responses API stream with its error event", async () => {
    const key = await sessionKey("stream-cut-responses", { max_tokens: 200 });
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key.value, maxRetries: 0, defaultHeaders: { "x-gw-session-id": "responses-run" } });
    const stream = await client.responses.create({ model: "openai/gpt-4o-mini", input: LONG_PROMPT, stream: true });
    let text = "";
    const types: string[] = [];
    const ended = await (async () => {
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === "response.output_text.delta") text += event.delta;
      }
    })().catch((error: unknown) => error);
    expect(ended).toBeInstanceOf(OpenAI.APIError);
    expect(String((ended as Error).message)).toContain("responses-run");
    expect(types).not.toContain("response.completed");
    expect(text.length).toBeGreaterThan(0);
    expect(text.length).toBeLessThan(ECHO.length);
  });
});
