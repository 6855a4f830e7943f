import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, jsonSchema, stepCountIs, streamText, tool } from "ai";
import { expectGatewayError, postJson } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockAnthropic, startMockAnthropic } from "../support/mock-anthropic";
import { type MockGemini, startMockGemini } from "../support/mock-gemini";

/**
 * The Vercel AI SDK (`ai` 7) as an app would use it, through the gateway with a virtual key:
 * `@ai-sdk/openai` on the Responses API (its default `store: true` refers back to earlier output
 * items by id) and on chat completions, and `@ai-sdk/anthropic` on the Anthropic mount, each
 * running a multi-step tool loop against an Anthropic model.
 */

const ANTHROPIC_KEY = "sk-ant-upstream-ai-sdk";
const NOTES = "the launch code is 7-4-1";
/** The prompt scripts the mock model's tool call (scripted-tool-call.ts). */
const PROMPT = 'What does notes.txt say? [call:read_notes {"path":"notes.txt"}]';

let gw: TestGateway;
let anthropic: MockAnthropic;
let gemini: MockGemini;
let virtualKey: string;
/** The bodies the SDK sent the gateway, in order. */
const sent: Array<Record<string, unknown>> = [];

const recordingFetch = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
  if (typeof init?.body === "string") sent.push(JSON.parse(init.body) as Record<string, unknown>);
  return fetch(input, init);
}) as typeof fetch;

beforeAll(async () => {
  anthropic = startMockAnthropic(ANTHROPIC_KEY);
  anthropic.preamble = "Let me read it.";
  gemini = startMockGemini();
  gw = await startGateway({
    enforce_auth_on_inference: true,
    providers: {
      anthropic: { keys: [{ id: "ant", value: ANTHROPIC_KEY }], network_config: { base_url: anthropic.baseUrl } },
      gemini: { keys: [{ id: "gem", value: gemini.apiKey }], network_config: { base_url: gemini.geminiBaseUrl } },
    },
  });
  const created = await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name: "ai-sdk" } });
  virtualKey = ((await created.json()) as { virtual_key: { value: string } }).virtual_key.value;
});
afterAll(async () => {
  await gw.close();
  anthropic.stop();
  gemini.stop();
});

const readNotes = tool({
  description: "Read a file of the project",
  inputSchema: jsonSchema<{ path: string }>({ type: "object", properties: { path: { type: "string" } }, required: ["path"], additionalProperties: false }),
  execute: async ({ path }) => (path === "notes.txt" ? NOTES : "no such file"),
});

const openai = () => createOpenAI({ baseURL: `${gw.url}/v1`, apiKey: virtualKey, fetch: recordingFetch });
const MODEL = "anthropic/claude-sonnet-4-5";

describe("@ai-sdk/openai to an Anthropic model", () => {
  test(".responses() with store on: step 2 refers to step 1's text by id, and the gateway resolves it", async () => {
    const before = sent.length;
    const result = await generateText({ model: openai().responses(MODEL), tools: { read_notes: readNotes }, stopWhen: stepCountIs(4), prompt: PROMPT });
    expect(result.text).toBe(`tool said: ${NOTES}`);
    expect(result.steps).toHaveLength(2);
    const second = sent.slice(before)[1]!;
    expect(second.input).toContainEqual({ type: "item_reference", id: expect.stringMatching(/^msg_[0-9a-f]{32}_0$/) });
    const messages = anthropic.requests.at(-1)!.body.messages as Array<{ role: string; content: Array<{ type: string; name?: string; text?: string }> }>;
    expect(messages[1]!.content).toEqual([{ type: "text", text: "Let me read it." }, expect.objectContaining({ type: "tool_use", name: "read_notes" })]);
  });

  test(".responses() streamed, multi-step: the same loop", async () => {
    const result = streamText({ model: openai().responses(MODEL), tools: { read_notes: readNotes }, stopWhen: stepCountIs(4), prompt: PROMPT });
    expect(await result.text).toBe(`tool said: ${NOTES}`);
  });

  test("a reference made on one provider is resolved when the conversation moves to another", async () => {
    const first = (await (await postJson(`${gw.url}/v1/responses`, { model: MODEL, input: PROMPT, tools: [{ type: "function", name: "read_notes", parameters: { type: "object", properties: { path: { type: "string" } } } }] }, { authorization: `Bearer ${virtualKey}` })).json()) as { output: Array<{ type: string; id: string; call_id: string }> };
    const [text, call] = first.output;
    const references = [text!, call!].map(({ id }) => ({ type: "item_reference", id }));
    const moved = await postJson(
      `${gw.url}/v1/responses`,
      { model: "gemini/gemini-2.5-flash", input: [{ role: "user", content: PROMPT }, ...references, { type: "function_call_output", call_id: call!.call_id, output: NOTES }] },
      { authorization: `Bearer ${virtualKey}` },
    );
    expect(moved.status).toBe(200);
    const contents = JSON.stringify(gemini.requests.at(-1)!.body.contents);
    expect(contents).toContain("Let me read it.");
    expect(contents).toContain("read_notes");
    expect(contents).toContain(NOTES);
  });

  test("a reference the gateway does not keep is a 400 naming the id", async () => {
    const response = await postJson(`${gw.url}/v1/responses`, { model: MODEL, input: [{ role: "user", content: "hi" }, { type: "item_reference", id: "fc_0123456789abcdef0123456789abcdef_0" }] }, { authorization: `Bearer ${virtualKey}` });
    const body = await expectGatewayError(response, 400, { param: "input[1].id" });
    expect(body.error.message).toContain("item_reference 'fc_0123456789abcdef0123456789abcdef_0' names no item this gateway keeps");
  });

  test(".chat(), multi-step tools", async () => {
    const result = await generateText({ model: openai().chat(MODEL), tools: { read_notes: readNotes }, stopWhen: stepCountIs(4), prompt: PROMPT });
    expect(result.text).toBe(`tool said: ${NOTES}`);
    expect(result.steps).toHaveLength(2);
  });
});

describe("@ai-sdk/anthropic on the Anthropic mount", () => {
  test("multi-step tools, streamed", async () => {
    const provider = createAnthropic({ baseURL: `${gw.url}/anthropic/v1`, apiKey: virtualKey });
    const result = streamText({ model: provider("claude-sonnet-4-5"), tools: { read_notes: readNotes }, stopWhen: stepCountIs(4), prompt: PROMPT });
    expect(await result.text).toBe(`tool said: ${NOTES}`);
    expect((await result.steps).length).toBe(2);
  });
});
