import { afterAll, beforeAll, expect, test } from "bun:test";
import OpenAI from "openai";
import type { PluginView } from "../../src/plugins/schemas";
import { eventually } from "../support/eventually";
import { closeNodes, startNodes, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { ADMIN_AUTH, fixturePath, jsonOf, type PluginResponse } from "./plugin-fixtures";

/** Each step waits for the other node's next check for changes (every second). */
const STEPS_TIMEOUT_MS = 20_000;

let upstream: MockOpenAI;
let first: TestGateway;
let second: TestGateway;

beforeAll(async () => {
  upstream = startMockOpenAI();
  const config = { auth: ADMIN_AUTH, providers: { openai: { keys: [{ id: "k1", value: "sk-test" }], network_config: { base_url: upstream.baseUrl } } } };
  [first, second] = await startNodes(config);
});
afterAll(async () => {
  await closeNodes([first, second]);
  upstream.stop();
});

/** What the plugins on `node` did to a chat: the tags they added to the prompt and to the response. */
async function tagsOn(node: TestGateway) {
  const { data, response } = await new OpenAI({ baseURL: `${node.url}/v1`, apiKey: "unused", maxRetries: 0 }).chat.completions
    .create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hello" }] })
    .withResponse();
  return { sent: data.choices[0]!.message.content, trail: response.headers.get("x-plugin-trail") };
}

/** Chats with `node` until its plugins leave `trail` (null: no plugin tagged the answer). */
const trailOn = (node: TestGateway, trail: string | null) =>
  eventually(
    () => tagsOn(node),
    (tags) => tags.trail === trail,
  );

const changePlugin = async (name: string, json: Record<string, unknown>) => jsonOf<PluginResponse>(await first.admin(`/api/plugins/${name}`, { method: "PUT", json }), 200);
const createPlugin = async (name: string, tag: string) =>
  jsonOf<PluginResponse>(await first.admin("/api/plugins", { method: "POST", json: { name, path: fixturePath("tagging-plugin.ts"), config: { tag } } }), 201);

test(
  "a plugin created, reconfigured, disabled, enabled and deleted on one node does so on the other's requests, without a restart",
  async () => {
    await createPlugin("tagger", "A");
    expect(await trailOn(second, "A")).toEqual({ sent: "echo: hello [A]", trail: "A" });

    await changePlugin("tagger", { config: { tag: "B" } });
    expect(await trailOn(second, "B")).toEqual({ sent: "echo: hello [B]", trail: "B" });

    await changePlugin("tagger", { enabled: false });
    expect(await trailOn(second, null)).toEqual({ sent: "echo: hello", trail: null });
    expect(await jsonOf<PluginView>(await second.admin("/api/plugins/tagger"), 200)).toMatchObject({ enabled: false, status: { status: "disabled" } });

    await changePlugin("tagger", { enabled: true });
    expect(await trailOn(second, "B")).toEqual({ sent: "echo: hello [B]", trail: "B" });

    expect((await first.admin("/api/plugins/tagger", { method: "DELETE" })).status).toBe(200);
    expect(await trailOn(second, null)).toEqual({ sent: "echo: hello", trail: null });
    expect((await second.admin("/api/plugins/tagger")).status).toBe(404);
  },
  STEPS_TIMEOUT_MS,
);

test(
  "when another node changes one plugin, the unchanged ones keep running the instance they had",
  async () => {
    await createPlugin("steady", "S");
    await createPlugin("moving", "M");
    expect((await trailOn(second, "M,S")).sent).toBe("echo: hello [S] [M]");
    const steadyBefore = await jsonOf<PluginView>(await second.admin("/api/plugins/steady"), 200);

    await changePlugin("moving", { config: { tag: "N" } });
    expect((await trailOn(second, "N,S")).sent).toBe("echo: hello [S] [N]");
    // Every start of the tagging plugin logs its tag: the moving one started again, the steady one did not.
    const steadyAfter = await jsonOf<PluginView>(await second.admin("/api/plugins/steady"), 200);
    expect(steadyAfter.status.logs).toEqual(steadyBefore.status.logs);
    const moving = await jsonOf<PluginView>(await second.admin("/api/plugins/moving"), 200);
    expect(moving.status.logs.filter((line) => line.includes("tagging requests with"))).toEqual([
      expect.stringContaining("tagging requests with M"),
      expect.stringContaining("tagging requests with N"),
    ]);
  },
  STEPS_TIMEOUT_MS,
);
