import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Agent, run, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled, tool } from "@openai/agents";
import OpenAI from "openai";
import { z } from "zod";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockAnthropic, startMockAnthropic } from "../support/mock-anthropic";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

/**
 * The OpenAI Agents SDK (`@openai/agents`) running an agent with a tool through the gateway with
 * a virtual key: on its default Responses API, to OpenAI and to an Anthropic model, and on chat
 * completions. Tracing is off, so nothing leaves for OpenAI's trace exporter.
 */

const ANTHROPIC_KEY = "sk-ant-upstream-agents";
const NOTES = "the launch code is 7-4-1";
/** The prompt scripts the mock model's tool call (scripted-tool-call.ts). */
const PROMPT = 'What does notes.txt say? [call:read_notes {"path":"notes.txt"}]';

let gw: TestGateway;
let anthropic: MockAnthropic;
let openai: MockOpenAI;

beforeAll(async () => {
  anthropic = startMockAnthropic(ANTHROPIC_KEY);
  openai = startMockOpenAI();
  gw = await startGateway({
    enforce_auth_on_inference: true,
    providers: {
      anthropic: { keys: [{ id: "ant", value: ANTHROPIC_KEY }], network_config: { base_url: anthropic.baseUrl } },
      openai: { keys: [{ id: "oa", value: "sk-openai-upstream" }], network_config: { base_url: openai.baseUrl } },
    },
  });
  const created = await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name: "agents" } });
  const virtualKey = ((await created.json()) as { virtual_key: { value: string } }).virtual_key.value;
  setTracingDisabled(true);
  // The Agents SDK pins its own copy of the openai package: the same client, typed by another copy.
  setDefaultOpenAIClient(new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: virtualKey, maxRetries: 0 }) as unknown as Parameters<typeof setDefaultOpenAIClient>[0]);
});
afterAll(async () => {
  setOpenAIAPI("responses");
  await gw.close();
  anthropic.stop();
  openai.stop();
});

const readNotes = tool({
  name: "read_notes",
  description: "Read a file of the project",
  parameters: z.object({ path: z.string() }),
  execute: async ({ path }) => (path === "notes.txt" ? NOTES : "no such file"),
});

const agentOn = (model: string) => new Agent({ name: "reader", instructions: "Answer from the files.", model, tools: [readNotes] });

describe("an agent with a tool, through the gateway", () => {
  for (const [api, model] of [
    ["responses", "openai/gpt-4.1"],
    ["responses", "anthropic/claude-sonnet-4-5"],
    ["chat_completions", "anthropic/claude-sonnet-4-5"],
  ] as const) {
    test(`${api} to ${model}: the tool runs and its result is the answer`, async () => {
      setOpenAIAPI(api);
      const result = await run(agentOn(model), PROMPT);
      expect(result.finalOutput).toBe(`tool said: ${NOTES}`);
    });
  }
});
