import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { PluginView } from "../../src/plugins/schemas";
import { createApiKey } from "../access/access-client";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { ADMIN_AUTH, fixturePath, jsonOf, type PluginResponse } from "./plugin-fixtures";

const BUILT_INS = ["governance", "response_cache", "logging", "telemetry"];

describe("the plugin API with dashboard authentication on (the admin signed in)", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ auth: ADMIN_AUTH });
  });
  afterAll(() => gw.close());

  test("built-in plugins (telemetry, logging, response cache, governance) are listed as plugins with their status", async () => {
    const { plugins, count } = await jsonOf<{ plugins: PluginView[]; count: number }>(await gw.admin("/api/plugins"), 200);
    expect(count).toBe(plugins.length);
    for (const name of BUILT_INS) {
      expect(plugins.find((plugin) => plugin.name === name)).toEqual({
        name,
        actualName: name,
        enabled: true,
        config: {},
        isCustom: false,
        path: "",
        status: { name, status: "active", logs: [], types: ["llm"] },
      });
    }
  });

  test("POST answers 201 with the created plugin, loaded from its local path", async () => {
    const path = fixturePath("tagging-plugin.ts");
    const created = await jsonOf<PluginResponse>(await gw.admin("/api/plugins", { method: "POST", json: { name: "tag-a", path, config: { tag: "A" } } }), 201);
    expect(created).toEqual({
      message: "Plugin created successfully",
      plugin: {
        name: "tag-a",
        actualName: "tagging",
        enabled: true,
        config: { tag: "A" },
        isCustom: true,
        path,
        order: 0,
        status: { name: "tag-a", status: "active", logs: expect.any(Array), types: ["llm", "http"] },
      },
    });
    expect(created.plugin.status.logs.join("\n")).toContain("tagging requests with A");
    expect(await jsonOf<PluginView>(await gw.admin("/api/plugins/tag-a"), 200)).toEqual(created.plugin);
  });

  test("POST answers 409 when the name exists, custom or built-in", async () => {
    const path = fixturePath("tagging-plugin.ts");
    await jsonOf(await gw.admin("/api/plugins", { method: "POST", json: { name: "twice", path, config: { tag: "T" } } }), 201);
    await expectGatewayError(await gw.admin("/api/plugins", { method: "POST", json: { name: "twice", path } }), 409, { param: "name" });
    await expectGatewayError(await gw.admin("/api/plugins", { method: "POST", json: { name: "logging", path } }), 409, { param: "name" });
  });

  test("bad input is a 400 naming the field", async () => {
    await expectGatewayError(await gw.admin("/api/plugins", { method: "POST", json: { name: "no-path" } }), 400, { param: "path" });
    await expectGatewayError(await gw.admin("/api/plugins", { method: "POST", json: { name: "ftp", path: "ftp://example.com/plugin.js" } }), 400, { param: "path" });
    await expectGatewayError(await gw.admin("/api/plugins", { method: "POST", json: { name: "bad name!", path: fixturePath("tagging-plugin.ts") } }), 400, { param: "name" });
    await expectGatewayError(await gw.admin("/api/plugins/response_cache", { method: "PUT", json: { config: { ttl_seconds: 0 } } }), 400, { param: "config.ttl_seconds" });
    await expectGatewayError(await gw.admin("/api/plugins/logging", { method: "PUT", json: { path: fixturePath("tagging-plugin.ts") } }), 400, { param: "path" });
  });

  test("PUT disables, reconfigures and re-enables a plugin; DELETE removes it", async () => {
    const path = fixturePath("tagging-plugin.ts");
    await jsonOf(await gw.admin("/api/plugins", { method: "POST", json: { name: "tag-b", path, config: { tag: "B" } } }), 201);
    const disabled = await jsonOf<PluginResponse>(await gw.admin("/api/plugins/tag-b", { method: "PUT", json: { enabled: false } }), 200);
    expect(disabled.message).toBe("Plugin updated successfully");
    expect(disabled.plugin).toMatchObject({ enabled: false, status: { status: "disabled", types: [] } });
    const reconfigured = await jsonOf<PluginResponse>(await gw.admin("/api/plugins/tag-b", { method: "PUT", json: { enabled: true, config: { tag: "B2" } } }), 200);
    expect(reconfigured.plugin).toMatchObject({ enabled: true, config: { tag: "B2" }, status: { status: "active" } });
    expect(reconfigured.plugin.status.logs.at(-1)).toContain("loaded 'tagging'");
    expect(reconfigured.plugin.status.logs.join("\n")).toContain("tagging requests with B2");

    expect(await jsonOf(await gw.admin("/api/plugins/tag-b", { method: "DELETE" }), 200)).toEqual({ message: "Plugin deleted successfully" });
    await expectGatewayError(await gw.admin("/api/plugins/tag-b"), 404, { errorType: "caller_plugin_not_found" });
  });

  test("a built-in plugin cannot be deleted, only disabled", async () => {
    await expectGatewayError(await gw.admin("/api/plugins/telemetry", { method: "DELETE" }), 400, { errorType: "caller_builtin_plugin" });
    const disabled = await jsonOf<PluginResponse>(await gw.admin("/api/plugins/telemetry", { method: "PUT", json: { enabled: false } }), 200);
    expect(disabled.plugin).toMatchObject({ isCustom: false, enabled: false, status: { status: "disabled" } });
    await jsonOf(await gw.admin("/api/plugins/telemetry", { method: "PUT", json: { enabled: true } }), 200);
  });

  test("plugin settings survive a restart", async () => {
    const path = fixturePath("tagging-plugin.ts");
    await jsonOf(await gw.admin("/api/plugins", { method: "POST", json: { name: "kept", path, config: { tag: "K" } } }), 201);
    await jsonOf(await gw.admin("/api/plugins/response_cache", { method: "PUT", json: { config: { default_key: "everyone" } } }), 200);
    await gw.stop();
    gw = await gw.restart();
    expect(await jsonOf<PluginView>(await gw.admin("/api/plugins/kept"), 200)).toMatchObject({ actualName: "tagging", config: { tag: "K" }, status: { status: "active" } });
    expect(await jsonOf<PluginView>(await gw.admin("/api/plugins/response_cache"), 200)).toMatchObject({ config: { default_key: "everyone" } });
  });
});

describe("a plugin path requires genuine admin authentication (spec 4.4)", () => {
  let gw: TestGateway;
  const seededPath = fixturePath("tagging-plugin.ts");
  beforeAll(async () => {
    // config.json is deploy-time configuration: its plugin paths are trusted.
    gw = await startGateway({ plugins: [{ name: "seeded", path: seededPath, config: { tag: "S" } }] });
  });
  afterAll(() => gw.close());

  test("with dashboard auth unconfigured, the setup token cannot set a path: 403", async () => {
    const body = await expectGatewayError(await gw.admin("/api/plugins", { method: "POST", json: { name: "sneaky", path: fixturePath("tagging-plugin.ts") } }), 403, {
      errorType: "policy_admin_authentication_required",
    });
    expect(body.error.message).toContain("dashboard authentication is disabled or not configured");
    await expectGatewayError(await gw.admin("/api/plugins/seeded", { method: "PUT", json: { path: fixturePath("answering-plugin.ts") } }), 403, {
      errorType: "policy_admin_authentication_required",
    });
    await expectGatewayError(await gw.admin("/api/plugins/sneaky"), 404);
  });

  test("other plugin management stays reachable with the setup token", async () => {
    const { plugins } = await jsonOf<{ plugins: PluginView[] }>(await gw.admin("/api/plugins"), 200);
    expect(plugins.find((plugin) => plugin.name === "seeded")).toMatchObject({ isCustom: true, path: seededPath, status: { status: "active" } });
    const updated = await jsonOf<PluginResponse>(await gw.admin("/api/plugins/seeded", { method: "PUT", json: { config: { tag: "S2" } } }), 200);
    expect(updated.plugin).toMatchObject({ path: seededPath, config: { tag: "S2" }, status: { status: "active" } });
    await jsonOf(await gw.admin("/api/plugins/response_cache", { method: "PUT", json: { config: { ttl_seconds: 60 } } }), 200);
  });
});

describe("a plugin path is refused to a management API key, even one holding Plugins:Create", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ edition: "enterprise", auth: ADMIN_AUTH });
  });
  afterAll(() => gw.close());

  test("403 for the key; the admin account may", async () => {
    const key = await createApiKey(gw, "plugin-deployer", ["Plugins:Create", "Plugins:View"]);
    const json = { name: "by-key", path: fixturePath("tagging-plugin.ts"), config: { tag: "K" } };
    const refused = await fetch(`${gw.url}/api/plugins`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(json) });
    await expectGatewayError(refused, 403, { errorType: "policy_admin_authentication_required" });
    await jsonOf(await gw.admin("/api/plugins", { method: "POST", json }), 201);
  });
});
