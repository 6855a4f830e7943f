import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AUTH_CONFIG, bearer, call, createApiKey } from "../access/access-client";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type McpHttpServer, startMcpHttpServer } from "../support/mcp-http-server";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { fakeDns } from "../support/webhook-endpoints";

/** 169.254.169.254, the cloud metadata service, as every spelling the URL parser or DNS lets through. */
const METADATA_SPELLINGS = [
  "http://169.254.169.254/v1",
  "http://2852039166/v1",
  "http://0xa9fea9fe/v1",
  "http://169.254.43518/v1",
  "http://[::ffff:169.254.169.254]/v1",
  "http://[::ffff:a9fe:a9fe]/v1",
  "http://[fd00:ec2::254]/v1",
  "http://metadata.google.internal./v1",
];

const LOOPBACK_SPELLINGS = ["http://127.0.0.1:9/v1", "http://127.1:9/v1", "http://2130706433:9/v1", "http://[::ffff:127.0.0.1]:9/v1", "http://localhost.:9/v1", "http://[::1]:9/v1"];

let upstream: MockOpenAI;
let mcpServer: McpHttpServer;

beforeAll(() => {
  upstream = startMockOpenAI();
  mcpServer = startMcpHttpServer();
});
afterAll(async () => {
  upstream.stop();
  await mcpServer.stop();
});

const chat = (gw: TestGateway, model: string) =>
  fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }) });

const provider = (name: string, baseUrl: string) => ({
  provider: name,
  custom_provider_config: { base_provider_type: "openai" },
  keys: [{ name: "k", value: "sk-policy", models: ["*"] }],
  network_config: { base_url: baseUrl, max_retries: 0 },
});

describe("link-local and cloud metadata addresses are refused to everyone, in every spelling", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ network: { allow_private_addresses: true } });
  });
  afterAll(() => gw.close());

  for (const [index, url] of METADATA_SPELLINGS.entries()) {
    test(`a provider base_url ${url}`, async () => {
      await expectGatewayError(await gw.admin("/api/providers", { method: "POST", json: provider(`meta${index}`, url) }), 400, { param: "network_config.base_url", errorType: "caller_address_refused" });
    });
  }

  test("an MCP server and an A2A agent at the metadata address", async () => {
    const mcp = await gw.admin("/api/mcp/client", { method: "POST", json: { name: "meta", connection_type: "http", connection_string: "http://[::ffff:169.254.169.254]/mcp" } });
    await expectGatewayError(mcp, 400, { param: "connection_string", errorType: "caller_address_refused" });
    const agent = await gw.admin("/api/agents", { method: "POST", json: { name: "meta", url: "http://2852039166/" } });
    await expectGatewayError(agent, 400, { param: "url", errorType: "caller_address_refused" });
  });
});

describe("every connection is checked: an address written before, or a name that changes its answer, is refused at connect", () => {
  let gw: TestGateway;
  const rebinding = fakeDns({ "llm.rebind.test": ["127.0.0.1"] });
  beforeAll(async () => {
    const network_config = { base_url: "http://0xa9fea9fe/v1", max_retries: 0 };
    // config.json is the operator's: its addresses are not checked when written, only when called.
    gw = await startGateway({ providers: { metadata: { custom_provider_config: { base_provider_type: "openai" }, keys: [{ value: "sk-x", models: ["*"] }], network_config } } }, { runtime: { resolveHost: rebinding.resolve } });
  });
  afterAll(() => gw.close());

  test("a configured provider at the metadata address answers 502 without a call", async () => {
    await expectGatewayError(await chat(gw, "metadata/gpt-4o-mini"), 502, { errorType: "gateway_upstream_address_refused" });
  });

  test("its Realtime socket is refused before the client's socket opens", async () => {
    const upgrade = { upgrade: "websocket", connection: "Upgrade", "sec-websocket-key": btoa("0123456789abcdef"), "sec-websocket-version": "13" };
    const response = await fetch(`${gw.url}/v1/realtime?model=metadata/gpt-realtime`, { headers: upgrade });
    const body = await expectGatewayError(response, 502, { errorType: "provider_unreachable" });
    expect(JSON.stringify(body)).toContain("never allowed");
  });

  test("a name that resolved to a local server when written and to the metadata address later (DNS rebinding), or to both at once, is refused", async () => {
    const port = new URL(upstream.baseUrl).port;
    expect((await gw.admin("/api/providers", { method: "POST", json: provider("rebinding", `http://llm.rebind.test:${port}/v1`) })).status).toBe(201);
    expect((await chat(gw, "rebinding/gpt-4o-mini")).status).toBe(200);
    const before = upstream.requests.length;
    for (const answer of [["169.254.169.254"], ["127.0.0.1", "169.254.169.254"], ["fe80::1"]]) {
      rebinding.table.set("llm.rebind.test", answer);
      await expectGatewayError(await chat(gw, "rebinding/gpt-4o-mini"), 502, { errorType: "gateway_upstream_address_refused" });
    }
    expect(upstream.requests.length).toBe(before);
  });
});

describe("a call to a name goes to the address checked, under the name's own Host", () => {
  let gw: TestGateway;
  const names = fakeDns({ "llm.pinned.test": ["127.0.0.1"] });
  beforeAll(async () => {
    gw = await startGateway({}, { runtime: { resolveHost: names.resolve } });
  });
  afterAll(() => gw.close());

  test("a Host among the provider's extra headers, in any case, does not replace it", async () => {
    const port = new URL(upstream.baseUrl).port;
    const pinned = provider("pinned", `http://llm.pinned.test:${port}/v1`);
    const created = await gw.admin("/api/providers", { method: "POST", json: { ...pinned, network_config: { ...pinned.network_config, extra_headers: { HOST: "elsewhere.test" } } } });
    expect(created.status).toBe(201);
    expect((await chat(gw, "pinned/gpt-4o-mini")).status).toBe(200);
    expect(upstream.requests.at(-1)!.headers.get("host")).toBe(`llm.pinned.test:${port}`);
  });
});

describe("a redirect is followed only to an address that passes", () => {
  test("a provider whose model listing redirects to the metadata service: the key check fails saying why", async () => {
    const redirecting = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => Response.redirect("http://169.254.169.254/latest/meta-data/", 302) });
    const gw = await startGateway({});
    try {
      const created = await gw.admin("/api/providers", { method: "POST", json: provider("redirecting", `http://127.0.0.1:${redirecting.port}/v1`) });
      expect(created.status).toBe(201);
      const { keys } = (await created.json()) as { keys: Array<{ status: string; description: string }> };
      expect(keys[0]).toMatchObject({ status: "list_models_failed", description: expect.stringContaining("never allowed") });
    } finally {
      redirecting.stop(true);
      await gw.close();
    }
  });
});

describe("loopback and private addresses are the admin's to configure", () => {
  let gw: TestGateway;
  let providerWriter: string;
  let mcpWriter: string;
  let agentWriter: string;
  let webhookWriter: string;
  const names = fakeDns({ "llm.example.test": ["93.184.216.34"] });
  beforeAll(async () => {
    gw = await startGateway({ edition: "enterprise", auth: AUTH_CONFIG }, { runtime: { resolveHost: names.resolve } });
    providerWriter = await createApiKey(gw, "providers", ["ModelProvider:View", "ModelProvider:Create", "ModelProvider:Update"]);
    mcpWriter = await createApiKey(gw, "mcp", ["MCP:View", "MCP:Create"]);
    agentWriter = await createApiKey(gw, "agents", ["Agents:View", "Agents:Create"]);
    webhookWriter = await createApiKey(gw, "webhooks", ["Webhooks:View", "Webhooks:Create"]);
  }, 30_000);
  afterAll(() => gw.close());

  test("the admin points a provider at a local server and it answers", async () => {
    expect((await gw.admin("/api/providers", { method: "POST", json: provider("local", upstream.baseUrl) })).status).toBe(201);
    expect((await chat(gw, "local/gpt-4o-mini")).status).toBe(200);
  });

  for (const [index, url] of LOOPBACK_SPELLINGS.entries()) {
    test(`a narrower role cannot write a provider base_url ${url}`, async () => {
      const response = await call(gw, "/api/providers", { method: "POST", headers: bearer(providerWriter), json: provider(`loop${index}`, url) });
      await expectGatewayError(response, 403, { param: "network_config.base_url", errorType: "policy_private_address_refused" });
    });
  }

  /** Addresses as the URL parser (and so fetch) reads them, which no `^https?://` pattern recognises. */
  const spellings = (port: string) => [`http:127.0.0.1:${port}/v1`, `http:/127.0.0.1:${port}/v1`, `http:192.168.0.9:${port}/v1`];

  test("a narrower role cannot retarget the admin's loopback provider by spelling the address another way", async () => {
    const port = new URL(upstream.baseUrl).port;
    const before = ((await (await gw.admin("/api/providers/local")).json()) as { network_config: { base_url: string } }).network_config.base_url;
    for (const spelled of spellings(port)) {
      const response = await call(gw, "/api/providers/local", { method: "PUT", headers: bearer(providerWriter), json: { network_config: { base_url: spelled, max_retries: 0 } } });
      await expectGatewayError(response, 403, { param: "network_config.base_url", errorType: "policy_private_address_refused" });
    }
    const after = ((await (await gw.admin("/api/providers/local")).json()) as { network_config: { base_url: string } }).network_config.base_url;
    expect(after).toBe(before);
  });

  test("the admin's spelled address is stored as the URL parser reads it, and is called there", async () => {
    const port = new URL(upstream.baseUrl).port;
    const written = await gw.admin("/api/providers", { method: "POST", json: provider("spelled", `http:127.0.0.1:${port}/v1`) });
    expect(((await written.json()) as { network_config: { base_url: string } }).network_config.base_url).toBe(`http://127.0.0.1:${port}/v1`);
    expect((await chat(gw, "spelled/gpt-4o-mini")).status).toBe(200);
  });

  test("a narrower role cannot point an A2A agent at a private address spelled without slashes", async () => {
    const agent = await call(gw, "/api/agents", { method: "POST", headers: bearer(agentWriter), json: { name: "spelled", url: "http:10.0.0.8:8080/" } });
    await expectGatewayError(agent, 403, { param: "url", errorType: "policy_private_address_refused" });
  });

  test("a narrower role's public name that later answers with a loopback address is refused at connect", async () => {
    const port = new URL(upstream.baseUrl).port;
    const created = await call(gw, "/api/providers", { method: "POST", headers: bearer(providerWriter), json: provider("public", `http://llm.example.test:${port}/v1`) });
    expect(created.status).toBe(201);
    names.table.set("llm.example.test", ["127.0.0.1"]);
    const before = upstream.requests.length;
    await expectGatewayError(await chat(gw, "public/gpt-4o-mini"), 502, { errorType: "gateway_upstream_address_refused" });
    expect(upstream.requests.length).toBe(before);
  });

  test("a narrower role cannot point an MCP client, an A2A agent or a webhook at a private address", async () => {
    const mcp = await call(gw, "/api/mcp/client", { method: "POST", headers: bearer(mcpWriter), json: { name: "local", connection_type: "http", connection_string: mcpServer.url } });
    await expectGatewayError(mcp, 403, { param: "connection_string", errorType: "policy_private_address_refused" });
    const agent = await call(gw, "/api/agents", { method: "POST", headers: bearer(agentWriter), json: { name: "local", url: "http://10.0.0.8:8080/" } });
    await expectGatewayError(agent, 403, { param: "url", errorType: "policy_private_address_refused" });
    const webhook = await call(gw, "/api/webhooks", { method: "POST", headers: bearer(webhookWriter), json: { name: "local", url: "http://127.0.0.1:9/hook", allow_private_network: true } });
    await expectGatewayError(webhook, 403, { param: "allow_private_network", errorType: "policy_private_address_refused" });
  });

  test("the admin's MCP client on loopback connects", async () => {
    const response = await gw.admin("/api/mcp/client", { method: "POST", json: { name: "local", connection_type: "http", connection_string: mcpServer.url } });
    expect(((await response.json()) as { state: string }).state).toBe("connected");
  });
});

describe("network.allow_private_addresses opens private addresses to narrower roles", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ edition: "enterprise", auth: AUTH_CONFIG, network: { allow_private_addresses: true } });
  }, 30_000);
  afterAll(() => gw.close());

  test("a provider and an MCP client on loopback, written by API keys holding only their permissions, work", async () => {
    const providerWriter = await createApiKey(gw, "providers", ["ModelProvider:View", "ModelProvider:Create"]);
    expect((await call(gw, "/api/providers", { method: "POST", headers: bearer(providerWriter), json: provider("local", upstream.baseUrl) })).status).toBe(201);
    expect((await chat(gw, "local/gpt-4o-mini")).status).toBe(200);
    const mcpWriter = await createApiKey(gw, "mcp", ["MCP:View", "MCP:Create"]);
    const mcp = await call(gw, "/api/mcp/client", { method: "POST", headers: bearer(mcpWriter), json: { name: "local", connection_type: "http", connection_string: mcpServer.url } });
    expect(((await mcp.json()) as { state: string }).state).toBe("connected");
  });
});
