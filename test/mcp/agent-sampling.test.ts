import { afterAll, beforeAll, expect, test } from "bun:test";
import OpenAI from "openai";
import { eventually } from "../support/eventually";
import type { TestGateway } from "../support/gateway";
import { type McpSessionServer, startMcpSessionServer } from "../support/mcp-session-server";
import { type ScriptedModel, startScriptedModel } from "../support/mcp-scripted-model";
import type { McpSettings } from "../../src/config/sections/mcp";
import { createMcpClient, createVirtualKey, startMcpGateway } from "./support";

let model: ScriptedModel;
let desk: McpSessionServer;
const gateways: TestGateway[] = [];

async function agentGateway(mcp: McpSettings): Promise<TestGateway> {
  const gw = await startMcpGateway({ mcp, providers: { openai: { keys: [{ id: "k1", value: "sk-upstream-model-key-0001" }], network_config: { base_url: model.baseUrl } } } });
  await createMcpClient(gw, { name: "desk", connection_type: "http", connection_string: desk.url, tools_to_execute: ["ask_model"], tools_to_auto_execute: ["ask_model"] });
  gateways.push(gw);
  return gw;
}

const ask = (gw: TestGateway, apiKey = "unused") =>
  new OpenAI({ baseURL: `${gw.url}/v1`, apiKey, maxRetries: 0 }).chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: 'call desk-ask_model {"question":"What is six times seven?"}' }] });

beforeAll(() => {
  model = startScriptedModel();
  desk = startMcpSessionServer();
});
afterAll(async () => {
  for (const gw of gateways) await gw.close();
  await desk.stop();
  model.stop();
});

test("in agent mode an upstream's sampling request is answered by the request's model, under the caller's virtual key", async () => {
  const gw = await agentGateway({});
  const key = await createVirtualKey(gw, "sampler");
  const completion = await ask(gw, key.value);
  expect(completion.choices[0]!.message.content).toBe("results: the model said: echo: What is six times seven?");
  const sampled = model.requests.find((request) => JSON.stringify(request.messages) === JSON.stringify([{ role: "user", content: "What is six times seven?" }]));
  expect(sampled).toMatchObject({ model: "gpt-4o-mini", max_tokens: 50 });
  // The chat request, the sampling request and the round after the tool, all on the caller's key.
  const logs = await eventually(async () => (await (await gw.admin(`/api/logs?virtual_key_ids=${key.id}`)).json()) as { total: number }, (page) => page.total >= 3);
  expect(logs.total).toBe(3);
});

test("streamed agent mode answers sampling the same way", async () => {
  const gw = await agentGateway({});
  const stream = await new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 }).chat.completions.create({
    model: "openai/gpt-4o-mini",
    messages: [{ role: "user", content: 'call desk-ask_model {"question":"And seven times eight?"}' }],
    stream: true,
  });
  let text = "";
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
  expect(text).toBe("results: the model said: echo: And seven times eight?");
});

test("with mcp.agent_sampling 'refuse' the upstream is not offered sampling, and the model hears the tool failed", async () => {
  const gw = await agentGateway({ agent_sampling: "refuse" });
  const before = desk.sessionCapabilities.length;
  const completion = await ask(gw);
  expect(completion.choices[0]!.message.content).toStartWith("results: error: MCP client 'desk' answered with an error:");
  expect(desk.sessionCapabilities.slice(before).every((capabilities) => capabilities.sampling === undefined)).toBe(true);
});
