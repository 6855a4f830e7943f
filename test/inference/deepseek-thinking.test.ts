import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { ANTHROPIC_UPSTREAM_KEY, openAIClientOf, RESPONSES_WEATHER_TOOL } from "../anthropic/fixture";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockAnthropic, startMockAnthropic } from "../support/mock-anthropic";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

/**
 * DeepSeek's thinking mode (on by default) answers with `reasoning_content`. In a tool loop, the
 * API refuses the next request with a 400 unless every earlier tool-calling turn brings its
 * `reasoning_content` back; Kimi's and GLM's thinking models want it back too. Claude Code (Anthropic's format) and Codex (the Responses API)
 * reach DeepSeek through the gateway, translated, and must not lose it.
 */

let deepseek: MockOpenAI;
let claude: MockAnthropic;
let gw: TestGateway;

beforeAll(async () => {
  deepseek = startMockOpenAI();
  deepseek.thinking = true;
  claude = startMockAnthropic(ANTHROPIC_UPSTREAM_KEY);
  gw = await startGateway({
    providers: {
      deepseek: { keys: [{ id: "ds", value: "sk-deepseek-upstream" }], network_config: { base_url: deepseek.baseUrl } },
      // Kimi's and GLM's thinking models keep the same rule; the mock stands in for each API.
      moonshot: { keys: [{ id: "kimi", value: "sk-moonshot-upstream" }], network_config: { base_url: deepseek.baseUrl } },
      zai: { keys: [{ id: "glm", value: "sk-zai-upstream" }], network_config: { base_url: deepseek.baseUrl } },
      anthropic: { keys: [{ id: "ant", value: ANTHROPIC_UPSTREAM_KEY }], network_config: { base_url: claude.baseUrl } },
    },
  });
});
afterAll(async () => {
  await gw.close();
  deepseek.stop();
  claude.stop();
});

const anthropicClient = () => new Anthropic({ baseURL: `${gw.url}/anthropic`, apiKey: "unused", maxRetries: 0 });
const weatherTools: Anthropic.Tool[] = [{ name: "get_weather", description: "Current weather", input_schema: { type: "object", properties: { city: { type: "string" } } } }];
const question: Anthropic.MessageParam = { role: "user", content: "what is the weather?" };

const MODEL = "deepseek/deepseek-v4-pro";
/** The assistant turns DeepSeek got in the last request, with their reasoning. */
const assistantTurnsSent = () =>
  (deepseek.requests.at(-1)!.body.messages as Array<{ role: string; reasoning_content?: string; tool_calls?: unknown[] }>)
    .filter((message) => message.role === "assistant")
    .map((message) => ({ reasoning: message.reasoning_content, calls: message.tool_calls?.length ?? 0 }));

describe.each([MODEL, "moonshot/kimi-k2-thinking", "zai/glm-4.6"])("a tool loop on %s in thinking mode", (model) => {
  test("from the Anthropic SDK: the thinking block sent back reaches the provider as the turn's reasoning_content", async () => {
    const client = anthropicClient();
    const tools = weatherTools;
    const first = await client.messages.create({ model, max_tokens: 200, tools, messages: [question] });
    expect(first.content.map((block) => block.type)).toEqual(["thinking", "tool_use"]);
    const call = first.content.find((block): block is Anthropic.ToolUseBlock => block.type === "tool_use")!;
    const second = await client.messages.create({
      model,
      max_tokens: 200,
      tools,
      messages: [question, { role: "assistant", content: first.content }, { role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: "sunny" }] }],
    });
    expect(second.stop_reason).toBeDefined();
    expect(assistantTurnsSent()).toEqual([{ reasoning: "thinking about: what is the weather?", calls: 1 }]);
  });

  test("from the Responses API as Codex sends it (store: false), run as a chat: the reasoning item's summary comes back as the turn's reasoning_content", async () => {
    // DeepSeek's own API has /responses; a server without it gets the call as a chat (Kimi's and GLM's always do).
    deepseek.missingRoutes = ["/responses"];
    const client: OpenAI = openAIClientOf(gw.url);
    const first = await client.responses.create({ model, store: false, input: "what is the weather?", tools: [RESPONSES_WEATHER_TOOL] });
    expect(first.output.map((item) => item.type)).toEqual(["reasoning", "function_call"]);
    const call = first.output.find((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === "function_call")!;
    const second = await client.responses.create({
      model,
      store: false,
      tools: [RESPONSES_WEATHER_TOOL],
      input: [{ role: "user", content: "what is the weather?" }, ...(first.output as OpenAI.Responses.ResponseInputItem[]), { type: "function_call_output", call_id: call.call_id, output: "sunny" }],
    });
    expect(second.status).toBe("completed");
    expect(assistantTurnsSent()).toEqual([{ reasoning: "thinking about: what is the weather?", calls: 1 }]);
  });
});

describe("a Claude Code session that moves from DeepSeek to Claude", () => {
  test("DeepSeek's unsigned thinking stays behind, and a tool turn left without thinking runs without it, instead of Anthropic's 400", async () => {
    const client = anthropicClient();
    const first = await client.messages.create({ model: MODEL, max_tokens: 200, tools: weatherTools, messages: [question] });
    const call = first.content.find((block): block is Anthropic.ToolUseBlock => block.type === "tool_use")!;
    const answered = await client.messages.create({
      model: "anthropic/claude-sonnet-4-5",
      max_tokens: 2000,
      thinking: { type: "enabled", budget_tokens: 1024 },
      tools: weatherTools,
      messages: [question, { role: "assistant", content: first.content }, { role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: "sunny" }] }],
    });
    expect(answered.content.length).toBeGreaterThan(0);
    const sent = claude.requests.at(-1)!.body as { thinking?: unknown; messages: Array<{ role: string; content: unknown }> };
    expect(sent.thinking).toBeUndefined();
    expect((sent.messages[1]!.content as Array<{ type: string }>).map((block) => block.type)).toEqual(["tool_use"]);
  });

  test("with Claude's own signed thinking last, only the unsigned blocks of earlier turns go, and thinking stays on", async () => {
    const client = anthropicClient();
    await client.messages.create({
      model: "anthropic/claude-sonnet-4-5",
      max_tokens: 2000,
      thinking: { type: "enabled", budget_tokens: 1024 },
      messages: [
        { role: "user", content: "first" },
        { role: "assistant", content: [{ type: "thinking", thinking: "deepseek thought", signature: "" }, { type: "text", text: "deepseek answer" }] },
        { role: "user", content: "second" },
      ],
    });
    const sent = claude.requests.at(-1)!.body as { thinking?: unknown; messages: Array<{ role: string; content: unknown }> };
    expect(sent.thinking).toEqual({ type: "enabled", budget_tokens: 1024 });
    expect((sent.messages[1]!.content as Array<{ type: string }>).map((block) => block.type)).toEqual(["text"]);
  });
});
