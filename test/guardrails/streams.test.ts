import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { openAIProvider } from "../governance/support";
import { startGateway, type TestGateway } from "../support/gateway";
import { loggedRequest } from "../support/logged-request";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { EMAIL, keyWithGuardrail, OPENAI_KEY } from "./support";

let upstream: MockOpenAI;
let gw: TestGateway;

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({ providers: { openai: openAIProvider(upstream) } });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

const chunk = (content: string) => ({ id: "c1", object: "chat.completion.chunk", created: 0, model: "gpt-4o-mini", choices: [{ index: 0, delta: { content }, finish_reason: null }] });
const finish = { id: "c1", object: "chat.completion.chunk", created: 0, model: "gpt-4o-mini", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] };
const SPLIT_AT = 14;

/** The upstream leaks an API key split over two SSE events. */
function leakKeyInTwoEvents() {
  upstream.faults.push({ kind: "stream-events", events: [chunk(`Your key is ${OPENAI_KEY.slice(0, SPLIT_AT)}`), chunk(`${OPENAI_KEY.slice(SPLIT_AT)} keep it safe`), finish] });
}

async function streamedText(client: OpenAI) {
  const stream = await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "what is my key?" }], stream: true });
  const pieces: string[] = [];
  for await (const part of stream) pieces.push(part.choices[0]?.delta?.content ?? "");
  return pieces;
}

describe("output checks run on a stream as it arrives", () => {
  test("an API key split over two SSE events is redacted, and no event carries any part of it", async () => {
    const { client } = await keyWithGuardrail(gw, "stream-redact", { checks: [{ type: "api_key", action: "redact", stage: "output" }] });
    leakKeyInTwoEvents();
    const pieces = await streamedText(client);
    expect(pieces.join("")).toBe("Your key is [API_KEY_1] keep it safe");
    expect(pieces.some((piece) => piece.includes(OPENAI_KEY.slice(0, SPLIT_AT)) || piece.includes(OPENAI_KEY.slice(SPLIT_AT)))).toBe(false);
    // Only the word that could still become a key was held back: the text before it went out first.
    expect(pieces).toContain("Your key is ");
    // The log keeps the reply as the upstream sent it, except what the check redacts.
    const row = await loggedRequest(gw, "stream-redact");
    expect(row.response_content).toBe("Your key is [API_KEY_1] keep it safe");
  });

  test("the same through the Anthropic SDK: the client's own stream format is rewritten", async () => {
    const { key } = await keyWithGuardrail(gw, "stream-anthropic", { checks: [{ type: "api_key", action: "redact", stage: "output" }] });
    leakKeyInTwoEvents();
    const client = new Anthropic({ baseURL: `${gw.url}/anthropic`, apiKey: key.value, maxRetries: 0 });
    const stream = client.messages.stream({ model: "openai/gpt-4o-mini", max_tokens: 100, messages: [{ role: "user", content: "what is my key?" }] });
    const message = await stream.finalMessage();
    expect(message.content).toEqual([expect.objectContaining({ type: "text", text: "Your key is [API_KEY_1] keep it safe" })]);
  });

  test("the same through the Gemini SDK", async () => {
    const { key } = await keyWithGuardrail(gw, "stream-genai", { checks: [{ type: "api_key", action: "redact", stage: "output" }] });
    leakKeyInTwoEvents();
    const genai = new GoogleGenAI({ apiKey: key.value, httpOptions: { baseUrl: `${gw.url}/genai` } });
    const pieces: string[] = [];
    for await (const part of await genai.models.generateContentStream({ model: "openai/gpt-4o-mini", contents: "what is my key?" })) pieces.push(part.text ?? "");
    expect(pieces.join("")).toBe("Your key is [API_KEY_1] keep it safe");
    expect(pieces.some((piece) => piece.includes("sk-proj"))).toBe(false);
  });

  test("a block ends the stream with the format's error event, which the SDK raises; the key never reaches the client", async () => {
    const { client } = await keyWithGuardrail(gw, "stream-block", { checks: [{ type: "api_key", stage: "output" }] });
    leakKeyInTwoEvents();
    const pieces: string[] = [];
    const stream = await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "what is my key?" }], stream: true });
    const error = await (async () => {
      for await (const part of stream) pieces.push(part.choices[0]?.delta?.content ?? "");
    })().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(String((error as Error).message)).toContain("guardrail 'stream-block'");
    expect(pieces.join("")).not.toContain("sk-proj");
    const row = await loggedRequest(gw, "stream-block");
    expect(row.guardrails).toEqual([{ guardrail: "stream-block", check: "api_key", stage: "output", action: "block", matches: 1 }]);
    expect(row).toMatchObject({ status: "error", error_type: "policy_guardrail_blocked" });
    expect(JSON.stringify(row)).not.toContain(OPENAI_KEY.slice(SPLIT_AT));
  });

  test("a key in a streamed tool call's arguments, split over two deltas, blocks the stream for the OpenAI and the Anthropic SDK", async () => {
    const toolDelta = (call: Record<string, unknown>) => ({ id: "c1", object: "chat.completion.chunk", created: 0, model: "gpt-4o-mini", choices: [{ index: 0, delta: { tool_calls: [{ index: 0, ...call }] }, finish_reason: null }] });
    const leakKeyInArguments = () =>
      upstream.faults.push({
        kind: "stream-events",
        events: [
          toolDelta({ id: "call_1", type: "function", function: { name: "deploy", arguments: "" } }),
          toolDelta({ function: { arguments: `{"token": "${OPENAI_KEY.slice(0, SPLIT_AT)}` } }),
          toolDelta({ function: { arguments: `${OPENAI_KEY.slice(SPLIT_AT)}"}` } }),
          { ...finish, choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
        ],
      });
    const { client, key } = await keyWithGuardrail(gw, "stream-block-arguments", { checks: [{ type: "api_key", stage: "output" }] });
    leakKeyInArguments();
    const seen: string[] = [];
    const stream = await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "deploy" }], stream: true });
    const error = await (async () => {
      for await (const part of stream) seen.push(JSON.stringify(part));
    })().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(String((error as Error).message)).toContain("guardrail 'stream-block-arguments'");
    expect(seen.join("")).not.toContain(OPENAI_KEY.slice(SPLIT_AT));

    leakKeyInArguments();
    const anthropic = new Anthropic({ baseURL: `${gw.url}/anthropic`, apiKey: key.value, maxRetries: 0 });
    const events: string[] = [];
    const anthropicError = await (async () => {
      for await (const event of anthropic.messages.stream({ model: "openai/gpt-4o-mini", max_tokens: 100, messages: [{ role: "user", content: "deploy" }] })) events.push(JSON.stringify(event));
    })().catch((caught: unknown) => caught);
    expect(anthropicError).toBeInstanceOf(Anthropic.APIError);
    expect(events.join("")).not.toContain(OPENAI_KEY.slice(SPLIT_AT));
  });

  test("an Anthropic client's stream ends with Anthropic's error event, which its SDK raises", async () => {
    const { key } = await keyWithGuardrail(gw, "stream-block-anthropic", { checks: [{ type: "api_key", stage: "output" }] });
    leakKeyInTwoEvents();
    const client = new Anthropic({ baseURL: `${gw.url}/anthropic`, apiKey: key.value, maxRetries: 0 });
    const texts: string[] = [];
    const stream = client.messages.stream({ model: "openai/gpt-4o-mini", max_tokens: 100, messages: [{ role: "user", content: "what is my key?" }] }).on("text", (text) => texts.push(text));
    const error = await stream.finalMessage().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(String((error as Error).message)).toContain("guardrail 'stream-block-anthropic'");
    expect(texts.join("")).not.toContain("sk-proj");
  });

  test("placeholders the upstream streams back are restored, even split over events", async () => {
    const { client } = await keyWithGuardrail(gw, "stream-restore", { restore_redacted: true, checks: [{ type: "email", action: "redact", stage: "input" }] });
    const stream = await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: `mail ${EMAIL} now` }], stream: true });
    const pieces: string[] = [];
    for await (const part of stream) pieces.push(part.choices[0]?.delta?.content ?? "");
    expect(JSON.stringify(upstream.requests.at(-1)!.body.messages)).not.toContain(EMAIL);
    expect(pieces.join("")).toBe(`echo: mail ${EMAIL} now`);
  });

  test("a Responses API stream: deltas, the done event and the completed response all carry the restored value", async () => {
    const { client } = await keyWithGuardrail(gw, "stream-responses", { restore_redacted: true, checks: [{ type: "email", action: "redact", stage: "input" }] });
    const stream = await client.responses.create({ model: "openai/gpt-4o-mini", input: `mail ${EMAIL} now`, stream: true });
    let deltas = "";
    let done = "";
    let completed = "";
    for await (const event of stream) {
      if (event.type === "response.output_text.delta") deltas += event.delta;
      if (event.type === "response.output_text.done") done = event.text;
      if (event.type === "response.completed") completed = event.response.output_text ?? JSON.stringify(event.response.output);
    }
    expect(JSON.stringify(upstream.requests.at(-1)!.body.input)).not.toContain(EMAIL);
    expect(deltas).toBe(`echo: mail ${EMAIL} now`);
    expect(done).toBe(`echo: mail ${EMAIL} now`);
    expect(completed).toContain(`echo: mail ${EMAIL} now`);
  });

  test("a placeholder split over two events is restored whole", async () => {
    const { client } = await keyWithGuardrail(gw, "stream-restore-split", { restore_redacted: true, checks: [{ type: "email", action: "redact", stage: "input" }] });
    upstream.faults.push({ kind: "stream-events", events: [chunk("I wrote to [EMA"), chunk("IL_1] today"), finish] });
    const stream = await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: `did you mail ${EMAIL}?` }], stream: true });
    const pieces: string[] = [];
    for await (const part of stream) pieces.push(part.choices[0]?.delta?.content ?? "");
    expect(pieces.join("")).toBe(`I wrote to ${EMAIL} today`);
  });
});
