import { afterAll, beforeAll, expect, test } from "bun:test";
import { closeNodes, startNodes, type TestGateway } from "../support/gateway";
import { postJson } from "../support/gateway-error";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { openAIProvider } from "../governance/support";

let upstream: MockOpenAI;
let first: TestGateway;
let second: TestGateway;

beforeAll(async () => {
  upstream = startMockOpenAI();
  [first, second] = await startNodes({ providers: { openai: openAIProvider(upstream) } });
  const created = await first.admin("/api/prompts", { method: "POST", json: { name: "greeting", messages: [{ role: "user", content: "v1 hello {{who}}" }], model: "openai/gpt-4o-mini" } });
  expect(created.status).toBe(201);
});
afterAll(async () => {
  await closeNodes([first, second]);
  upstream.stop();
});

/** What a node answers for the production label: the text the mock echoes back. */
async function productionOn(node: TestGateway): Promise<string> {
  const response = await postJson(`${node.url}/v1/prompts/greeting/chat/completions`, { label: "production", variables: { who: "you" } });
  const body = (await response.json()) as { choices: Array<{ message: { content: string } }> };
  expect(response.status).toBe(200);
  return body.choices[0]!.message.content;
}

const addVersion = (node: TestGateway, text: string) => node.admin("/api/prompts/greeting/versions", { method: "POST", json: { messages: [{ role: "user", content: text }], model: "openai/gpt-4o-mini" } });

test("a version added on one node and a label moved on the other take effect on both at once", async () => {
  const added = await addVersion(second, "v2 hello {{who}}");
  expect(((await added.json()) as { version: { version: number } }).version.version).toBe(2);
  expect((await first.admin("/api/prompts/greeting/labels/production", { method: "PUT", json: { version: 1 } })).status).toBe(200);
  expect(await productionOn(second)).toBe("echo: v1 hello you");

  // No wait between the move and the runs: each node reads the label as it is written.
  expect((await second.admin("/api/prompts/greeting/labels/production", { method: "PUT", json: { version: 2 } })).status).toBe(200);
  expect([await productionOn(first), await productionOn(second)]).toEqual(["echo: v2 hello you", "echo: v2 hello you"]);
  expect((await first.admin("/api/prompts/greeting/labels/production", { method: "PUT", json: { version: 1 } })).status).toBe(200);
  expect([await productionOn(second), await productionOn(first)]).toEqual(["echo: v1 hello you", "echo: v1 hello you"]);
});

test("two nodes adding a version at once never write the same number twice", async () => {
  const answers = await Promise.all([addVersion(first, "from first {{who}}"), addVersion(second, "from second {{who}}"), addVersion(first, "again first {{who}}")]);
  const statuses = answers.map((response) => response.status);
  expect(statuses.every((status) => status === 201 || status === 409)).toBe(true);
  const detail = (await (await second.admin("/api/prompts/greeting")).json()) as { versions: Array<{ version: number; messages: Array<{ content: string }> }> };
  const numbers = detail.versions.map((version) => version.version);
  expect(numbers).toEqual([...new Set(numbers)].toSorted((a, b) => a - b));
  expect(numbers.length).toBe(2 + statuses.filter((status) => status === 201).length);
});
