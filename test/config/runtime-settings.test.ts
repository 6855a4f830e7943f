import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eventually } from "../support/eventually";
import { expectGatewayError, postJson } from "../support/gateway-error";
import { closeNodes, startGateway, startNodes, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

/** GET/PUT /api/config: the settings the gateway runs with, changed while it runs. */

let upstream: MockOpenAI;

beforeAll(() => {
  upstream = startMockOpenAI();
});
afterAll(() => upstream.stop());

const configOf = () => ({
  logs_store: { retention_days: 7 },
  providers: { openai: { keys: [{ id: "k", value: "sk-upstream" }], network_config: { base_url: upstream.baseUrl } } },
});

const settingsOf = async (gw: TestGateway) => (await gw.admin("/api/config")).json() as Promise<Record<string, unknown>>;
const put = (gw: TestGateway, json: unknown) => gw.admin("/api/config", { method: "PUT", json });
const chat = (gw: TestGateway) => postJson(`${gw.url}/v1/chat/completions`, { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });

describe("GET and PUT /api/config", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway(configOf());
  });
  afterAll(() => gw.close());

  test("GET shows the settings the gateway runs with: config.json's, and the defaults for the rest", async () => {
    expect(await settingsOf(gw)).toEqual({
      edition: "oss",
      enforce_auth_on_inference: false,
      logs_store: { content_logging: true, retention_days: 7, refused_requests: "without_content" },
      stored_responses: { enabled: true, retention_days: 30 },
    });
  });

  test("a change applies at once: requiring a virtual key refuses the next call without one, and lifting it serves it", async () => {
    expect((await chat(gw)).status).toBe(200);
    const changed = await put(gw, { enforce_auth_on_inference: true });
    expect(((await changed.json()) as { enforce_auth_on_inference: boolean }).enforce_auth_on_inference).toBe(true);
    await expectGatewayError(await chat(gw), 401, { errorType: "caller_virtual_key_required" });
    await put(gw, { enforce_auth_on_inference: false });
    expect((await chat(gw)).status).toBe(200);
  });

  test("a field left out stays as it was; retention_days null keeps logs forever", async () => {
    await put(gw, { logs_store: { content_logging: false } });
    expect((await settingsOf(gw)).logs_store).toEqual({ content_logging: false, retention_days: 7, refused_requests: "without_content" });
    await put(gw, { logs_store: { retention_days: null, content_logging: true } });
    expect((await settingsOf(gw)).logs_store).toEqual({ content_logging: true, retention_days: null, refused_requests: "without_content" });
  });

  test("bad input is a 400 naming the field, and changes nothing", async () => {
    await expectGatewayError(await put(gw, { stored_responses: { retention_days: 0 } }), 400, { param: "stored_responses.retention_days" });
    await expectGatewayError(await put(gw, { port: 9 }), 400);
    expect((await settingsOf(gw)).stored_responses).toEqual({ enabled: true, retention_days: 30 });
  });

  test("it is a management route: without the setup token it is refused", async () => {
    expect((await fetch(`${gw.url}/api/config`)).status).toBe(401);
  });
});

describe("a change to the settings", () => {
  test("survives a restart, over config.json's value, while what was never changed still follows config.json", async () => {
    const gw = await startGateway(configOf());
    await put(gw, { stored_responses: { retention_days: 3 } });
    await gw.stop();
    const restarted = await gw.restart();
    try {
      expect(await settingsOf(restarted)).toMatchObject({ stored_responses: { retention_days: 3 }, logs_store: { retention_days: 7 } });
    } finally {
      await restarted.close();
    }
  });

  test("reaches the other nodes of the deployment within seconds", async () => {
    const nodes = await startNodes(configOf());
    try {
      await put(nodes[0], { enforce_auth_on_inference: true });
      const seen = await eventually(() => settingsOf(nodes[1]), (settings) => settings.enforce_auth_on_inference === true);
      expect(seen.enforce_auth_on_inference).toBe(true);
      await expectGatewayError(await chat(nodes[1]), 401, { errorType: "caller_virtual_key_required" });
    } finally {
      await closeNodes(nodes);
    }
  });
});
