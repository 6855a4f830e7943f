import { afterAll, beforeAll, describe, expect, test } from "bun:test";
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

describe("writes of one prompt on two nodes at once", () => {
  const draft = (name: string, text: string) => ({ method: "POST", json: { name, messages: [{ role: "user", content: text }] } });
  const contents = async (node: TestGateway, name: string) => {
    const detail = (await (await node.admin(`/api/prompts/${name}`)).json()) as { versions: Array<{ messages: Array<{ content: string }> }> };
    return detail.versions.map((version) => version.messages[0]!.content);
  };

  test("two creates of one name: one is version 1, the other a 409, and the prompt is whole", async () => {
    const answers = await Promise.all([first.admin("/api/prompts", draft("twice", "first")), second.admin("/api/prompts", draft("twice", "second"))]);
    expect(answers.map((answer) => answer.status).toSorted()).toEqual([201, 409]);
    expect(await contents(first, "twice")).toEqual([answers[0]!.status === 201 ? "first" : "second"]);
  });

  test("a prompt deleted on one node while the other adds versions leaves none behind: created again, it is only version 1", async () => {
    for (let round = 0; round < 10; round++) {
      expect((await first.admin("/api/prompts", draft("racing", `round ${round}`))).status).toBe(201);
      // Versions are added one after another for as long as the delete takes, so some land mid-delete.
      let deleting = true;
      const deletion = first.admin("/api/prompts/racing", { method: "DELETE" }).finally(() => (deleting = false));
      const adds: Array<Promise<Response>> = [];
      while (deleting) {
        adds.push(second.admin("/api/prompts/racing/versions", { method: "POST", json: { messages: [{ role: "user", content: `add ${adds.length}` }] } }));
        await second.admin("/api/prompts");
      }
      const [deleted, ...added] = await Promise.all([deletion, ...adds]);
      expect(deleted.status).toBe(200);
      expect(added.map((answer) => answer.status).filter((status) => ![201, 404, 409].includes(status))).toEqual([]);
      expect((await second.admin("/api/prompts/racing")).status).toBe(404);
      expect((await second.admin("/api/prompts", draft("racing", "again"))).status).toBe(201);
      expect(await contents(first, "racing")).toEqual(["again"]);
      expect((await second.admin("/api/prompts/racing", { method: "DELETE" })).status).toBe(200);
    }
  });
});
