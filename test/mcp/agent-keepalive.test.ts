import { afterAll, beforeAll, expect, test } from "bun:test";
import { text } from "../support/mcp-tools";
import { type AgentDesk, startAgentDesk } from "./support";

let desk: AgentDesk;
const slowTool = Promise.withResolvers<() => void>();

beforeAll(async () => {
  desk = await startAgentDesk(
    { wait: { description: "Takes its time", run: () => new Promise((resolve) => slowTool.resolve(() => resolve(text("done waiting")))) } },
    { agent_keepalive_seconds: 0.05 },
  );
});
afterAll(() => desk.close());

test("while a streamed agent's tools run, SSE comments keep the stream alive; the answer follows", async () => {
  const response = await fetch(`${desk.gw.url}/v1/chat/completions`, {
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
