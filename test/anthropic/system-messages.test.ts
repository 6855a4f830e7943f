import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockAnthropic, startMockAnthropic } from "../support/mock-anthropic";
import { type MockGemini, startMockGemini } from "../support/mock-gemini";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { ANTHROPIC_UPSTREAM_KEY } from "./fixture";

// Claude Code sends instructions as `role: "system"` messages between the turns, in Anthropic's
// format: relayed as they are to Anthropic, and kept as system instructions, where they stand,
// by a translation.

let anthropic: MockAnthropic;
let openai: MockOpenAI;
let gemini: MockGemini;
let gw: TestGateway;

beforeAll(async () => {
  anthropic = startMockAnthropic(ANTHROPIC_UPSTREAM_KEY);
  openai = startMockOpenAI();
  gemini = startMockGemini();
  gw = await startGateway({
    providers: {
      anthropic: { keys: [{ id: "a", value: ANTHROPIC_UPSTREAM_KEY }], network_config: { base_url: anthropic.baseUrl } },
      openai: { keys: [{ id: "o", value: "sk-openai" }], network_config: { base_url: openai.baseUrl } },
      gemini: { keys: [{ id: "g", value: gemini.apiKey }], network_config: { base_url: gemini.geminiBaseUrl } },
    },
  });
});
afterAll(async () => {
  await gw.close();
  anthropic.stop();
  openai.stop();
  gemini.stop();
});

const environment = "# Environment\nPrimary working directory: /work";
/** The shape of Claude Code's first request: the prompt, then a system message. */
const conversation = (role = "system") => [
  { role: "user", content: [{ type: "text", text: "hello there" }] },
  { role, content: [{ type: "text", text: environment, cache_control: { type: "ephemeral" } }] },
];

const messages = (body: Record<string, unknown>) =>
  fetch(`${gw.url}/anthropic/v1/messages`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": "unused", "anthropic-version": "2023-06-01" }, body: JSON.stringify({ max_tokens: 100, ...body }) });

describe("system messages inside messages, on /anthropic", () => {
  test("to Anthropic they are relayed untouched, and the reply comes back", async () => {
    const response = await messages({ model: "anthropic/claude-sonnet-4-5", system: "Be brief.", messages: conversation() });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { content: Array<{ text: string }> }).content[0]!.text).toBe("echo: hello there");
    expect(anthropic.requests.at(-1)!.body.messages).toEqual(conversation());
  });

  test("to Anthropic a role the gateway does not know is relayed too, and Anthropic's own refusal reaches the client", async () => {
    const response = await messages({ model: "anthropic/claude-sonnet-4-5", messages: conversation("critic") });
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain("messages.1.role: Input should be 'user', 'assistant' or 'system'");
    expect(anthropic.requests.at(-1)!.body.messages).toEqual(conversation("critic"));
  });

  test("to an OpenAI-format model each becomes a system message at its place", async () => {
    const response = await messages({ model: "openai/gpt-4o-mini", system: "Be brief.", messages: [...conversation(), { role: "assistant", content: "hi" }, { role: "user", content: "again" }] });
    expect(response.status).toBe(200);
    expect(openai.requests.at(-1)!.body.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "hello there" },
      { role: "system", content: [{ type: "text", text: environment }] },
      { role: "assistant", content: "hi" },
      { role: "user", content: "again" },
    ]);
  });

  test("to Gemini they join the system instruction in order, and no user turn carries them", async () => {
    const response = await messages({ model: "gemini/gemini-2.5-flash", system: "Be brief.", messages: conversation() });
    expect(response.status).toBe(200);
    const sent = gemini.requests.at(-1)!.body as { systemInstruction: { parts: Array<{ text: string }> }; contents: Array<{ role: string; parts: Array<{ text?: string }> }> };
    expect(sent.systemInstruction.parts.map((part) => part.text)).toEqual(["Be brief.", environment]);
    expect(sent.contents).toEqual([{ role: "user", parts: [{ text: "hello there" }] }]);
  });

  test("translated, a role no other format has is a 400 naming the message", async () => {
    const refused = await expectGatewayError(await messages({ model: "openai/gpt-4o-mini", messages: conversation("critic") }), 400, { param: "messages[1].role" });
    expect(refused.error.message).toStartWith("messages[1].role must be one of user, assistant, system");
  });
});

describe("validation errors read as sentences naming the field", () => {
  test("a role that is not a string", async () => {
    const refused = await expectGatewayError(await messages({ model: "anthropic/claude-sonnet-4-5", messages: [{ role: 5, content: "hi" }] }), 400, { param: "messages[0].role" });
    expect(refused.error.message).toBe("messages[0].role must be a string");
  });

  test("a number out of range, and a missing field", async () => {
    const tooFew = await expectGatewayError(await messages({ model: "anthropic/claude-sonnet-4-5", max_tokens: 0, messages: conversation() }), 400, { param: "max_tokens" });
    expect(tooFew.error.message).toBe("max_tokens must be an integer of at least 1");
    const missing = await expectGatewayError(await messages({ model: "anthropic/claude-sonnet-4-5" }), 400, { param: "messages" });
    expect(missing.error.message).toBe("messages is required");
  });

  test("a value outside a fixed set lists the set", async () => {
    const response = await fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }], stream: "yes" }) });
    const refused = await expectGatewayError(response, 400, { param: "stream" });
    expect(refused.error.message).toBe("stream must be true or false");
  });
});
