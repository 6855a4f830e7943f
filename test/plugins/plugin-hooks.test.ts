import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { expectGatewayError, postJson } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import type { PluginView } from "../../src/plugins/schemas";
import { ADMIN_AUTH, fixturePath, jsonOf, type PluginResponse } from "./plugin-fixtures";

let upstream: MockOpenAI;
beforeAll(() => {
  upstream = startMockOpenAI();
});
afterAll(() => upstream.stop());

/** A gateway with the given plugins created through the API, in order. */
async function gatewayWith(plugins: Array<{ name: string; fixture: string; config?: Record<string, unknown> }>): Promise<TestGateway> {
  const gw = await startGateway({ auth: ADMIN_AUTH, providers: { openai: { keys: [{ id: "k1", value: "sk-test" }], network_config: { base_url: upstream.baseUrl } } } });
  for (const { name, fixture, config = {} } of plugins) {
    const created = await jsonOf<PluginResponse>(await gw.admin("/api/plugins", { method: "POST", json: { name, path: fixturePath(fixture), config } }), 201);
    expect(created.plugin.status.status).toBe("active");
  }
  return gw;
}

const chat = (gw: TestGateway, content: string, headers: Record<string, string> = {}) =>
  new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0, defaultHeaders: headers }).chat.completions
    .create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }] })
    .withResponse();

/** Plugins `first` (tag A) and `second` (tag B), created in that order. */
const twoTaggingPlugins = () =>
  gatewayWith([
    { name: "first", fixture: "tagging-plugin.ts", config: { tag: "A" } },
    { name: "second", fixture: "tagging-plugin.ts", config: { tag: "B" } },
  ]);

describe("hook order", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await twoTaggingPlugins();
  });
  afterAll(() => gw.close());

  test("before the upstream, plugins run in creation order and may rewrite the request", async () => {
    const { data } = await chat(gw, "hello");
    expect(upstream.requests.at(-1)!.body.messages).toEqual([{ role: "user", content: "hello [A] [B]" }]);
    expect(data.choices[0]!.message.content).toBe("echo: hello [A] [B]");
  });

  test("after the response, they run in reverse order, on the pipeline and on the HTTP transport", async () => {
    const { response } = await chat(gw, "order please");
    expect(response.headers.get("x-plugin-trail")).toBe("B,A");
    expect(response.headers.get("x-transport-trail")).toBe("B,A");
  });

  test("error answers pass back through the transport hooks too", async () => {
    const response = await postJson(`${gw.url}/v1/chat/completions`, { model: "nowhere/none", messages: [{ role: "user", content: "hi" }] });
    expect(response.headers.get("x-transport-trail")).toBe("B,A");
    await expectGatewayError(response, 400, { param: "model" });
  });

  test("a transport hook may answer the request itself, before routing", async () => {
    const sent = upstream.requests.length;
    const response = await postJson(`${gw.url}/v1/chat/completions`, { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }, { "x-stop-at": "A" });
    expect(response.status).toBe(418);
    expect(await response.json()).toEqual({ stopped_by: "A" });
    expect(upstream.requests.length).toBe(sent);
  });

  test("a disabled plugin drops out of the order at once", async () => {
    await jsonOf(await gw.admin("/api/plugins/first", { method: "PUT", json: { enabled: false } }), 200);
    const { data, response } = await chat(gw, "fewer");
    expect(data.choices[0]!.message.content).toBe("echo: fewer [B]");
    expect(response.headers.get("x-plugin-trail")).toBe("B");
    await jsonOf(await gw.admin("/api/plugins/first", { method: "PUT", json: { enabled: true } }), 200);
  });
});

describe("plugin order", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await twoTaggingPlugins();
  });
  afterAll(() => gw.close());

  const customOrder = async (on = gw) => (await jsonOf<{ plugins: PluginView[] }>(await on.admin("/api/plugins"), 200)).plugins.filter((plugin) => plugin.isCustom).map((plugin) => [plugin.name, plugin.order]);

  test("a lower order runs earlier: the next request goes through the moved plugin first, without restarting it", async () => {
    expect(await customOrder()).toEqual([["first", 0], ["second", 0]]);
    await jsonOf(await gw.admin("/api/plugins/first", { method: "PUT", json: { order: 2 } }), 200);
    await jsonOf(await gw.admin("/api/plugins/second", { method: "PUT", json: { order: 1 } }), 200);
    const { data, response } = await chat(gw, "reordered");
    expect(data.choices[0]!.message.content).toBe("echo: reordered [B] [A]");
    expect(response.headers.get("x-plugin-trail")).toBe("A,B");
    expect(await customOrder()).toEqual([["second", 1], ["first", 2]]);
    const first = await jsonOf<PluginView>(await gw.admin("/api/plugins/first"), 200);
    expect(first.status.logs.filter((line) => line.includes("loaded"))).toHaveLength(1);
  });

  test("the order is kept across a restart", async () => {
    await gw.stop();
    gw = await gw.restart();
    expect(await customOrder()).toEqual([["second", 1], ["first", 2]]);
    expect((await chat(gw, "still")).data.choices[0]!.message.content).toBe("echo: still [B] [A]");
  });

  test("a built-in runs at a fixed place: giving it an order is a 400 naming the field; a negative order too", async () => {
    await expectGatewayError(await gw.admin("/api/plugins/logging", { method: "PUT", json: { order: 1 } }), 400, { param: "order" });
    await expectGatewayError(await gw.admin("/api/plugins/first", { method: "PUT", json: { order: -1 } }), 400, { param: "order" });
  });
});

describe("a plugin may answer a request short-circuit", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await gatewayWith([
      { name: "answering", fixture: "answering-plugin.ts", config: { question: "ping", answer: "pong" } },
      { name: "tagging", fixture: "tagging-plugin.ts", config: { tag: "T" } },
    ]);
  });
  afterAll(() => gw.close());

  test("the upstream is not called and later plugins' request hooks do not run", async () => {
    const sent = upstream.requests.length;
    const { data, response } = await chat(gw, "ping");
    expect(data.choices[0]!.message.content).toBe("pong");
    expect(upstream.requests.length).toBe(sent);
    expect(response.headers.get("x-plugin-trail")).toBeNull();
    expect(response.headers.get("x-transport-trail")).toBe("T");
  });

  test("other requests pass through to the upstream", async () => {
    const { data } = await chat(gw, "not ping");
    expect(data.choices[0]!.message.content).toBe("echo: not ping [T]");
  });
});

describe("a plugin's error is logged and fails open or closed by its configuration", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await gatewayWith([{ name: "flaky", fixture: "failing-plugin.ts", config: { fail_in: "admit" } }]);
  });
  afterAll(() => gw.close());

  test("fail open (the default): the request goes on and the error lands in the plugin's logs", async () => {
    const { data } = await chat(gw, "despite the plugin");
    expect(data.choices[0]!.message.content).toBe("echo: despite the plugin");
    const plugin = await jsonOf<PluginResponse["plugin"]>(await gw.admin("/api/plugins/flaky"), 200);
    expect(plugin.status.status).toBe("active");
    expect(plugin.status.logs.at(-1)).toContain("admit failed: boom in admit");
  });

  test("fail closed: the request is refused with a gateway error and never reaches the upstream", async () => {
    await jsonOf(await gw.admin("/api/plugins/flaky", { method: "PUT", json: { config: { fail_in: "admit", fail_closed: true } } }), 200);
    const sent = upstream.requests.length;
    const response = await postJson(`${gw.url}/v1/chat/completions`, { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "blocked" }] });
    const body = await expectGatewayError(response, 500, { errorType: "gateway_plugin_failed" });
    expect(body.error.message).not.toContain("boom");
    expect(upstream.requests.length).toBe(sent);
  });
});
