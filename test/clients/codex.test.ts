import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runCodex } from "../support/codex-cli";
import { eventually } from "../support/eventually";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockAnthropic, startMockAnthropic } from "../support/mock-anthropic";
import { type MockGemini, startMockGemini } from "../support/mock-gemini";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

/**
 * The real Codex CLI, default settings, through /v1/responses with a virtual key, to each kind of
 * provider: OpenAI's Responses API (same format), Anthropic and Gemini (translated), and a
 * chat-only OpenAI-format server whose /responses answers Ollama's `404 page not found`. The
 * prompt scripts the mock model's call (scripted-tool-call.ts): Codex's shell tool reads a file
 * of the working directory, the model answers with what the tool returned, Codex prints it.
 */

const ANTHROPIC_KEY = "sk-ant-upstream-codex";
const NOTES = "the launch code is 7-4-1";
const PROMPT = 'What does notes.txt say? [call:exec_command {"cmd":"cat notes.txt"}]';

let gw: TestGateway;
let openai: MockOpenAI;
let anthropic: MockAnthropic;
let gemini: MockGemini;
let chatOnly: MockOpenAI;
let virtualKey: string;

beforeAll(async () => {
  openai = startMockOpenAI();
  anthropic = startMockAnthropic(ANTHROPIC_KEY);
  gemini = startMockGemini();
  chatOnly = startMockOpenAI();
  chatOnly.missingRoutes = ["/responses"];
  chatOnly.missingRouteStyle = "go";
  gw = await startGateway({
    enforce_auth_on_inference: true,
    providers: {
      openai: { keys: [{ id: "oa", value: "sk-openai-upstream" }], network_config: { base_url: openai.baseUrl } },
      anthropic: { keys: [{ id: "ant", value: ANTHROPIC_KEY }], network_config: { base_url: anthropic.baseUrl } },
      gemini: { keys: [{ id: "gem", value: gemini.apiKey }], network_config: { base_url: gemini.geminiBaseUrl } },
      local: { network_config: { base_url: chatOnly.baseUrl }, custom_provider_config: { base_provider_type: "openai" } },
    },
  });
  const created = await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name: "codex" } });
  virtualKey = ((await created.json()) as { virtual_key: { value: string } }).virtual_key.value;
});
afterAll(async () => {
  await gw.close();
  for (const mock of [openai, anthropic, gemini, chatOnly]) mock.stop();
});

const codex = (model: string, reasoningEffort?: "high") => runCodex({ baseUrl: `${gw.url}/v1`, virtualKey, model, reasoningEffort, prompt: PROMPT, files: { "notes.txt": `${NOTES}\n` } });

/** The request logs of a model, newest first. */
async function logsOf(model: string): Promise<Array<{ status: string; metadata: Record<string, string> }>> {
  const response = await gw.admin(`/api/logs?model=${encodeURIComponent(model)}&limit=10`);
  return ((await response.json()) as { logs: Array<{ status: string; metadata: Record<string, string> }> }).logs;
}

/** The bodies a mock was sent during `run`. */
async function sentDuring(mock: { requests: Array<{ path: string; body: Record<string, unknown> }> }, run: () => Promise<unknown>) {
  const before = mock.requests.length;
  await run();
  return mock.requests.slice(before);
}

describe("codex exec through /v1/responses", () => {
  test("to OpenAI: the shell tool reads the file and Codex prints the answer", async () => {
    let run: Awaited<ReturnType<typeof codex>> | undefined;
    const sent = await sentDuring(openai, async () => (run = await codex("openai/gpt-5.1-codex")));
    expect(run!.exitCode).toBe(0);
    expect(run!.stdout).toContain("tool said:");
    expect(run!.stdout).toContain(NOTES);
    expect(sent.map((request) => request.path)).toEqual(["/v1/responses", "/v1/responses"]);
    // The namespace and web search tools went to OpenAI as Codex wrote them.
    expect(sent[0]!.body.tools).toEqual(expect.arrayContaining([expect.objectContaining({ type: "namespace", name: "multi_agent_v1" }), expect.objectContaining({ type: "web_search" })]));
    expect(JSON.stringify(sent[1]!.body.input)).toContain(NOTES);
  }, 90_000);

  test("to Anthropic: the namespace's tools go flattened, web search as Anthropic's own, and the loop completes", async () => {
    let run: Awaited<ReturnType<typeof codex>> | undefined;
    const sent = await sentDuring(anthropic, async () => (run = await codex("anthropic/claude-sonnet-4-5")));
    expect(run!.exitCode).toBe(0);
    expect(run!.stdout).toContain(NOTES);
    expect(sent.map((request) => request.path)).toEqual(["/v1/messages", "/v1/messages"]);
    const tools = sent[0]!.body.tools as Array<{ name: string; type?: string }>;
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["exec_command", "multi_agent_v1__spawn_agent", "multi_agent_v1__wait_agent"]));
    expect(tools).toContainEqual({ type: "web_search_20250305", name: "web_search" });
    expect(JSON.stringify(sent[1]!.body.messages)).toContain(NOTES);
  }, 90_000);

  test("to Anthropic with reasoning effort high: the signed thinking goes back with the tool call, as Anthropic requires", async () => {
    let run: Awaited<ReturnType<typeof codex>> | undefined;
    const sent = await sentDuring(anthropic, async () => (run = await codex("anthropic/claude-sonnet-4-5", "high")));
    expect(run!.exitCode).toBe(0);
    expect(run!.stdout).toContain(NOTES);
    expect(sent[0]!.body).toMatchObject({ max_tokens: 64000, thinking: { type: "enabled", budget_tokens: 4096 } });
    const turns = sent[1]!.body.messages as Array<{ role: string; content: Array<{ type: string }> }>;
    expect(turns[1]!.content.map((block) => block.type)).toEqual(["thinking", "tool_use"]);
  }, 90_000);

  test("to Gemini 2.5: web search beside function tools is left out with a log note, and the loop completes", async () => {
    let run: Awaited<ReturnType<typeof codex>> | undefined;
    const sent = await sentDuring(gemini, async () => (run = await codex("gemini/gemini-2.5-flash")));
    expect(run!.exitCode).toBe(0);
    expect(run!.stdout).toContain(NOTES);
    expect(sent).toHaveLength(2);
    expect(JSON.stringify(sent[0]!.body.tools)).not.toContain("googleSearch");
    expect(JSON.stringify(sent[0]!.body.tools)).toContain("multi_agent_v1__spawn_agent");
    expect(JSON.stringify(sent[1]!.body.contents)).toContain(NOTES);
    const [log] = await eventually(() => logsOf("gemini-2.5-flash"), (logs) => logs.length > 0);
    expect(log!.metadata.gw_dropped_tools).toBe("web_search (Gemini models before Gemini 3 take Google Search grounding only without function tools)");
  }, 90_000);

  test("to a chat-only server answering 404 on /responses: the gateway runs the loop as chats", async () => {
    let run: Awaited<ReturnType<typeof codex>> | undefined;
    const sent = await sentDuring(chatOnly, async () => (run = await codex("local/qwen3-coder")));
    expect(run!.exitCode).toBe(0);
    expect(run!.stdout).toContain(NOTES);
    // One 404, remembered: the second turn goes straight to the chat.
    expect(sent.map((request) => request.path)).toEqual(["/v1/responses", "/v1/chat/completions", "/v1/chat/completions"]);
    expect(JSON.stringify(sent[2]!.body.messages)).toContain(NOTES);
    const [log] = await eventually(() => logsOf("qwen3-coder"), (logs) => logs.length > 0);
    expect(log!.metadata.gw_dropped_tools).toBe("web_search (the openai format has no web search the gateway can ask for)");
  }, 90_000);
});
