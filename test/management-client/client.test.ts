import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { createGatewayClient, type GatewayClient } from "../../client";
import { eventually } from "../support/eventually";
import { SETUP_TOKEN, startGateway, type TestGateway } from "../support/gateway";
import { REPO_ROOT } from "../support/main-process";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

let upstream: MockOpenAI;
let gw: TestGateway;
let gateway: GatewayClient;

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway();
  gateway = createGatewayClient(gw.url, { setupToken: SETUP_TOKEN });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

describe("client/index.ts, as a user's script calls the management API", () => {
  test("registers a provider, creates a virtual key, and finds the key's call in the logs", async () => {
    const provider = await gateway.POST("/api/providers", { body: { provider: "openai", keys: [{ value: "sk-upstream-0001", models: ["*"] }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } } });
    expect(provider.response.status).toBe(201);
    expect(provider.data?.keys[0]?.value).not.toContain("sk-upstream-0001");

    const created = await gateway.POST("/api/governance/virtual-keys", { body: { name: "eval-suite", budgets: [{ max_limit: 5, reset_duration: "1M" }] } });
    expect(created.response.status).toBe(201);
    const key = created.data!.virtual_key;
    expect(key.value).toStartWith("sk-gw-");
    expect(key.budgets).toEqual([{ max_limit: 5, reset_duration: "1M", calendar_aligned: false }]);

    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key.value, maxRetries: 0 });
    await openai.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "say hello" }] });

    const read = () => gateway.GET("/api/logs", { params: { query: { virtual_key_ids: key.id } } });
    const { data } = await eventually(read, ({ data }) => (data?.logs.length ?? 0) > 0);
    expect(data?.logs.map((log) => ({ virtual_key_name: log.virtual_key_name, provider: log.provider, model: log.model, status: log.status }))).toEqual([
      { virtual_key_name: "eval-suite", provider: "openai", model: "gpt-4o-mini", status: "success" },
    ]);
  });

  test("a refused call answers the gateway's error body, naming the bad field", async () => {
    const { data, error, response } = await gateway.POST("/api/governance/virtual-keys", { body: { name: "bad", budgets: [{ max_limit: -1, reset_duration: "1M" }] } });
    expect(response.status).toBe(400);
    expect(data).toBeUndefined();
    expect(error?.error.param).toBe("budgets[0].max_limit");
    expect(error?.extra_fields.error_type).toBe("caller_invalid_request");
  });

  test("path parameters are filled in, and an unknown id is a 404", async () => {
    const { error, response } = await gateway.GET("/api/logs/{id}", { params: { path: { id: "no-such-log" } } });
    expect(response.status).toBe(404);
    expect(error?.error.message).toBeString();
  });

  test("a wrong credential is refused with 401", async () => {
    const stranger = createGatewayClient(gw.url, { bearer: "not-a-session" });
    const { error, response } = await stranger.GET("/api/governance/virtual-keys");
    expect(response.status).toBe(401);
    expect(error?.extra_fields.error_type).toStartWith("caller_");
  });

  test("the README's script, run as it says, creates its virtual key and prints the latest log rows", async () => {
    const readme = await Bun.file(join(REPO_ROOT, "README.md")).text();
    const script = /^```ts client\n([\s\S]*?)^```$/m.exec(readme)?.[1];
    expect(script).toContain('from "./client"');
    const folder = mkdtempSync(join(tmpdir(), "gateway-client-script-"));
    try {
      // The script as written, its import pointed at this checkout's client/ and its address at this gateway.
      const file = join(folder, "manage.ts");
      writeFileSync(file, script!.replace('"./client"', JSON.stringify(join(REPO_ROOT, "client"))).replace("http://127.0.0.1:8080", gw.url));
      const run = Bun.spawn([process.execPath, file], { env: { ...process.env, TOKEN: SETUP_TOKEN }, stdout: "pipe", stderr: "pipe" });
      const [printed, failed, exitCode] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited]);
      expect({ exitCode, failed }).toEqual({ exitCode: 0, failed: "" });
      expect(printed).toMatch(/^virtual key: sk-gw-\S+$/m);
      expect(printed).toContain("openai gpt-4o-mini success");
      const listed = await gateway.GET("/api/governance/virtual-keys", { params: { query: { search: "nightly-eval" } } });
      expect(listed.data?.virtual_keys.map((key) => key.name)).toEqual(["nightly-eval"]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  test("a playground run may name only a stored prompt: its model and messages come from the prompt", async () => {
    const provider = { provider: "prompted", custom_provider_config: { base_provider_type: "openai" }, network_config: { base_url: upstream.baseUrl, max_retries: 0 } };
    expect((await gateway.POST("/api/providers", { body: provider })).response.status).toBe(201);
    const prompt = await gateway.POST("/api/prompts", { body: { name: "client-greeting", messages: [{ role: "user", content: "Greet {{who}}" }], model: "prompted/gpt-4o-mini" } });
    expect(prompt.response.status).toBe(201);

    const run = await gateway.POST("/api/playground/chat/completions", { body: { prompt: { name: "client-greeting", variables: { who: "the client" } } } });
    expect(run.response.status).toBe(200);
    expect(run.data?.choices[0]?.message.content).toBe("echo: Greet the client");

    const refused = await gateway.POST("/api/playground/chat/completions", { body: { prompt: { name: "client-greeting", version: 0 } } });
    expect(refused.response.status).toBe(400);
    expect(refused.error?.error.param).toBe("prompt.version");
  });
});
