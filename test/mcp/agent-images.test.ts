import { afterAll, beforeAll, expect, test } from "bun:test";
import OpenAI from "openai";
import { type AgentDesk, startAgentDesk } from "./support";

const SCREENSHOT = Buffer.from(Array.from({ length: 60_000 }, (_, index) => (index * 7) % 256)).toString("base64");
const LOGO = Buffer.from("a small logo").toString("base64");

let desk: AgentDesk;

beforeAll(async () => {
  desk = await startAgentDesk({
    screenshot: { description: "Captures the screen", run: () => ({ content: [{ type: "text", text: "captured the harbour desk" }, { type: "image", data: SCREENSHOT, mimeType: "image/png" }] }) },
    logo: { description: "The company logo", run: () => ({ content: [{ type: "image", data: LOGO, mimeType: "image/jpeg" }] }) },
    clock: { description: "The time", run: () => ({ content: [{ type: "text", text: "noon" }] }) },
  });
});
afterAll(() => desk.close());

test("in agent mode a tool's images reach the model as images, after the round's tool messages", async () => {
  const openai = new OpenAI({ baseURL: `${desk.gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
  const completion = await openai.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "call desk-screenshot; call desk-clock; call desk-logo" }] });
  expect(completion.choices[0]!.message.content).toBe(
    "results: captured the harbour desk\n[image/png image: attached in the next message] | noon | [image/jpeg image: attached in the next message] (2 images)",
  );
  const followUp = desk.model.requests.at(-1)!.messages as Array<{ role: string; content: unknown }>;
  expect(followUp.map((message) => message.role)).toEqual(["user", "assistant", "tool", "tool", "tool", "user"]);
  expect(followUp.at(-1)!.content).toEqual([
    { type: "text", text: "Images returned by desk-screenshot (call_0_0):" },
    { type: "image_url", image_url: { url: `data:image/png;base64,${SCREENSHOT}` } },
    { type: "text", text: "Images returned by desk-logo (call_0_2):" },
    { type: "image_url", image_url: { url: `data:image/jpeg;base64,${LOGO}` } },
  ]);
  expect(JSON.stringify(followUp.slice(0, -1))).not.toContain(SCREENSHOT);
});
