import { afterAll, beforeAll, expect, test } from "bun:test";
import OpenAI from "openai";
import { eventually } from "../support/eventually";
import { closeNodes, startNodes, type TestGateway } from "../support/gateway";
import { type MockOpenAIPlatform, startMockOpenAIPlatform } from "../support/mock-openai-platform";

let upstream: MockOpenAIPlatform;
let first: TestGateway;
let second: TestGateway;

beforeAll(async () => {
  upstream = startMockOpenAIPlatform();
  [first, second] = await startNodes();
});
afterAll(async () => {
  await closeNodes([first, second]);
  upstream.stop();
});

type KeyBody = { id: string; status: string; description: string };

const keyOn = async (node: TestGateway, id: string) => (await (await node.admin(`/api/providers/openai/keys/${id}`)).json()) as KeyBody;
const modelsOn = async (node: TestGateway) => (await new OpenAI({ baseURL: `${node.url}/v1`, apiKey: "unused", maxRetries: 0 }).models.list()).data.map((model) => model.id);

/** Each step waits for the other node's next check for changes (every second). */
const STEPS_TIMEOUT_MS = 15_000;

test("a key's health check on one node shows on the other: its status, its description and the models it reaches", async () => {
  upstream.keys.set("sk-shared-0001", ["gpt-4o-mini", "o3-mini"]);
  const created = await first.admin("/api/providers", { method: "POST", json: { provider: "openai", network_config: { base_url: upstream.baseUrl }, keys: [{ id: "shared", value: "sk-shared-0001" }] } });
  expect(created.status).toBe(201);
  const checked = await eventually(
    () => keyOn(second, "shared"),
    (key) => key.status === "success",
  );
  expect(checked).toMatchObject({ status: "success", description: "listed 2 models" });
  expect(await modelsOn(second)).toEqual(expect.arrayContaining(["openai/gpt-4o-mini", "openai/o3-mini"]));

  // The provider revokes the key; a refresh on the second node tells the first.
  upstream.keys.delete("sk-shared-0001");
  expect((await second.admin("/api/providers/openai/keys/shared/refresh-models", { method: "POST" })).status).toBe(200);
  const failed = await eventually(
    () => keyOn(first, "shared"),
    (key) => key.status === "list_models_failed",
  );
  expect(failed.description).toContain("401");
  expect(await modelsOn(first)).not.toContain("openai/o3-mini");
}, STEPS_TIMEOUT_MS);
