import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { AUTH_CONFIG, bearer, call, createApiKey } from "../access/access-client";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

let upstream: MockOpenAI;
beforeAll(() => {
  upstream = startMockOpenAI();
});
afterAll(() => upstream.stop());

const chat = (gw: TestGateway, model: string) =>
  fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }) });

const lastAuthorization = () => upstream.requests.at(-1)!.headers.get("authorization") ?? "";

describe("env.NAME resolves only variables the configuration file allows, never the gateway's own settings", () => {
  let gw: TestGateway;
  afterEach(async () => {
    delete process.env.PROVIDER_TEST_OPENAI_KEY;
    delete process.env.EXTRA_TEST_SECRET;
    await gw.close();
  });

  test("by default a PROVIDER_* variable is read, while GATEWAY_* settings and the rest of the environment read as empty", async () => {
    process.env.PROVIDER_TEST_OPENAI_KEY = "sk-from-allowed-variable";
    const network_config = { base_url: upstream.baseUrl };
    gw = await startGateway({
      providers: {
        openai: { keys: [{ id: "allowed", value: "env.PROVIDER_TEST_OPENAI_KEY", models: ["*"] }], network_config },
        groq: { keys: [{ id: "setting", value: "env.GATEWAY_ENCRYPTION_KEY", models: ["*"] }], network_config },
        mistral: { keys: [{ id: "path", value: "env.PATH", models: ["*"] }], network_config },
      },
    });
    await chat(gw, "openai/gpt-4o-mini");
    expect(lastAuthorization()).toBe("Bearer sk-from-allowed-variable");
    await chat(gw, "groq/llama");
    expect(lastAuthorization()).not.toContain("test-encryption-key");
    await chat(gw, "mistral/mistral-large");
    expect(lastAuthorization()).not.toContain(process.env.PATH!);
  });

  test("env_references.allow replaces the defaults", async () => {
    process.env.EXTRA_TEST_SECRET = "sk-extra";
    process.env.PROVIDER_TEST_OPENAI_KEY = "sk-no-longer-allowed";
    const network_config = { base_url: upstream.baseUrl };
    gw = await startGateway({
      env_references: { allow: ["EXTRA_TEST_*"] },
      providers: { openai: { keys: [{ id: "extra", value: "env.EXTRA_TEST_SECRET", models: ["gpt-4o-mini"] }, { id: "provider", value: "env.PROVIDER_TEST_OPENAI_KEY", models: ["gpt-4o"] }], network_config } },
    });
    await chat(gw, "openai/gpt-4o-mini");
    expect(lastAuthorization()).toBe("Bearer sk-extra");
    await chat(gw, "openai/gpt-4o");
    expect(lastAuthorization()).not.toContain("sk-no-longer-allowed");
  });

  test("writing a reference to a variable that is not allowed is a 400 naming the field, even for the admin", async () => {
    gw = await startGateway({});
    const webhook = await gw.admin("/api/webhooks", { method: "POST", json: { name: "leak", url: "https://receiver.example/hook", headers: { "X-Leak": "env.GATEWAY_ENCRYPTION_KEY" } } });
    await expectGatewayError(webhook, 400, { param: "headers.X-Leak", errorType: "caller_env_reference_not_allowed" });
    const mcp = await gw.admin("/api/mcp/client", { method: "POST", json: { name: "remote", connection_type: "http", connection_string: "http://127.0.0.1:9/mcp", headers: { authorization: "env.PATH" } } });
    await expectGatewayError(mcp, 400, { param: "headers.authorization", errorType: "caller_env_reference_not_allowed" });
    const key = await gw.admin("/api/providers", { method: "POST", json: { provider: "openai", keys: [{ name: "leak", value: "env.GATEWAY_SETUP_TOKEN", models: ["*"] }] } });
    await expectGatewayError(key, 400, { param: "keys[0].value", errorType: "caller_env_reference_not_allowed" });
    const stdio = await gw.admin("/api/mcp/client", { method: "POST", json: { name: "local", connection_type: "stdio", stdio_config: { command: "env", envs: { LEAK: "env.GATEWAY_SETUP_TOKEN" } } } });
    await expectGatewayError(stdio, 400, { param: "stdio_config.envs.LEAK", errorType: "caller_env_reference_not_allowed" });
  });
});

describe("writing an env. reference through the API needs the admin", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ edition: "enterprise", auth: AUTH_CONFIG });
  }, 30_000);
  afterAll(() => gw.close());

  const CASES: Array<[string, string[], string, string, unknown, string]> = [
    ["a webhook header, holding only Webhooks permissions", ["Webhooks:View", "Webhooks:Create"], "POST", "/api/webhooks", { name: "hook", url: "https://receiver.example/hook", headers: { "X-Token": "env.PROVIDER_TOKEN" } }, "headers.X-Token"],
    ["an MCP header, holding MCP permissions", ["MCP:View", "MCP:Create"], "POST", "/api/mcp/client", { name: "remote", connection_type: "http", connection_string: "http://127.0.0.1:9/mcp", headers: { authorization: "env.PROVIDER_TOKEN" } }, "headers.authorization"],
    ["an A2A agent header, holding Agents permissions", ["Agents:View", "Agents:Create"], "POST", "/api/agents", { name: "agent", url: "http://127.0.0.1:9", headers: { authorization: "env.PROVIDER_TOKEN" } }, "headers.authorization"],
    ["a provider key value, holding ModelProvider permissions", ["ModelProvider:View", "ModelProvider:Create"], "POST", "/api/providers", { provider: "openai", keys: [{ name: "k", value: "env.OPENAI_API_KEY", models: ["*"] }] }, "keys[0].value"],
  ];
  for (const [index, [what, scopes, method, path, json, param]] of CASES.entries()) {
    test(what, async () => {
      const key = await createApiKey(gw, `writer-${index}`, scopes);
      const refused = await expectGatewayError(await call(gw, path, { method, headers: bearer(key), json }), 403, { errorType: "policy_admin_authentication_required", param });
      const reference = JSON.stringify(json).match(/env\.[A-Z_]+/)![0];
      expect(refused.error.message).toBe(`only the admin may write env. references (${param} is '${reference}')`);
    });
  }

  test("the admin may write an allowed reference", async () => {
    const response = await gw.admin("/api/webhooks", { method: "POST", json: { name: "admin-hook", url: "https://receiver.example/hook", headers: { "X-Token": "env.PROVIDER_TOKEN" } } });
    expect(response.status).toBe(201);
  });
});
