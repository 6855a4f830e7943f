import { afterAll, beforeAll, expect, test } from "bun:test";
import type { TestGateway } from "../support/gateway";
import { type McpHttpServer, startMcpHttpServer } from "../support/mcp-http-server";
import { type ScriptedModel, startScriptedModel } from "../support/mcp-scripted-model";
import { text } from "../support/mcp-tools";
import { createMcpClient, startMcpGateway } from "./support";

let gw: TestGateway;
let model: ScriptedModel;
let desk: McpHttpServer;
const slowTool = Promise.withResolvers<() => void>();

beforeAll(async () => {
  model = startScriptedModel();
  desk = startMcpHttpServer({
    tools: { wait: { description: "Takes its time", run: () => new Promise((resolve) => slowTool.resolve(() => resolve(text("done waiting")))) } },
  });
  gw = await startMcpGateway({ mcp: { agent_keepalive_seconds: 0.05 }, providers: { openai: { keys: [{ id: "k1", value: "sk-upstream-model-key-0001" }], network_config: { base_url: model.baseUrl } } } });
  await createMcpClient(gw, { name: "desk", connection_type: "http", connection_string: desk.url, tools_to_execute: ["*"], tools_to_auto_execute: ["*"] });
});
afterAll(async () => {
  await gw.close();
  model.stop();
  await desk.stop();
});

test("while a streamed agent's tools run, SSE comments keep the stream alive; the answer follows", async () => {
  const response = await fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "openai/gpt-4o-mini", stream: true, messages: [{ role: "user", content: "call desk-wait" }] }),
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let seen = "";
  while (!seen.includes(": running tool calls\n\n")) seen += decoder.decode((await reader.read()).value, { stream: true });
  (await slowTool.promise)();
  for (let read = await reader.read(); !read.done; read = await reader.read()) seen += decoder.decode(read.value, { stream: true });
  const events = seen.split("\n\n").filter((event) => event.startsWith("data: {"));
  const answer = events.map((event) => (JSON.parse(event.slice(6)) as { choices: Array<{ delta: { content?: string } }> }).choices[0]?.delta.content ?? "").join("");
  expect(answer).toBe("results: done waiting");
  expect(seen.trimEnd().endsWith("data: [DONE]")).toBe(true);
});
