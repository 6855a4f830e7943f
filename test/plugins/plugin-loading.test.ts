import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import OpenAI from "openai";
import type { HostResolver } from "../../src/plugins";
import type { PluginView } from "../../src/plugins/schemas";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { ADMIN_AUTH, fixturePath, jsonOf, type PluginResponse } from "./plugin-fixtures";

const TAGGING_SOURCE = readFileSync(fixturePath("tagging-plugin.ts"), "utf8");

/** Serves plugin modules on loopback, and the redirects and oversized bodies a download must survive. */
function startModuleServer() {
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const { pathname, origin: here, port } = new URL(request.url);
      switch (pathname) {
        case "/tagging-plugin.ts":
          return new Response(TAGGING_SOURCE, { headers: { "content-type": "text/plain" } });
        case "/moved.ts":
          return Response.redirect(`${here}/tagging-plugin.ts`, 301);
        case "/to-private.ts":
          return Response.redirect("http://10.0.0.1/tagging-plugin.ts", 302);
        case "/to-metadata.ts":
          return Response.redirect("http://169.254.169.254/latest/meta-data", 302);
        case "/to-loopback-v6.ts":
          return Response.redirect(`http://[::1]:${port}/tagging-plugin.ts`, 307);
        case "/huge.js":
          return new Response(`// ${"x".repeat(6 * 1024 * 1024)}\nexport default {};`);
        default:
          return new Response("not found", { status: 404 });
      }
    },
  });
  return { server, url: (path: string) => `http://127.0.0.1:${server.port}${path}` };
}

/** Host names the tests resolve, pointing at each address class. */
const NAMES: Record<string, string[]> = {
  "plugins.example.test": ["127.0.0.1"],
  "loopback.example.test": ["127.0.0.1"],
  "private.example.test": ["10.1.2.3"],
  "link-local.example.test": ["169.254.169.254"],
  "cgnat.example.test": ["100.64.0.7"],
  "ula.example.test": ["fd12:3456::1"],
  "mixed.example.test": ["93.184.216.34", "192.168.0.10"],
};
const resolveHost: HostResolver = async (hostname) => {
  const addresses = NAMES[hostname];
  if (!addresses) throw new Error(`getaddrinfo ENOTFOUND ${hostname}`);
  return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
};

const expectRefused = (plugin: PluginView, reason: RegExp) => {
  expect(plugin.status).toMatchObject({ status: "error", types: [] });
  expect(plugin.status.logs.join("\n")).toMatch(reason);
};

let modules: ReturnType<typeof startModuleServer>;
beforeAll(() => {
  modules = startModuleServer();
});
afterAll(() => modules.server.stop(true));

describe("remote plugins from an http URL on loopback, allowed by server.plugin_download_private_allowlist", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ auth: ADMIN_AUTH, server: { plugin_download_private_allowlist: ["127.0.0.1/32"] } });
  });
  afterAll(() => gw.close());

  const create = async (name: string, path: string) =>
    (await jsonOf<PluginResponse>(await gw.admin("/api/plugins", { method: "POST", json: { name, path, config: { tag: name } } }), 201)).plugin;

  test("the module is downloaded, loaded and active", async () => {
    const plugin = await create("remote", modules.url("/tagging-plugin.ts"));
    expect(plugin).toMatchObject({ actualName: "tagging", path: modules.url("/tagging-plugin.ts"), status: { status: "active", types: ["llm", "http"] } });
  });

  test("a redirect to an allowed address is followed", async () => {
    expect((await create("moved", modules.url("/moved.ts"))).status.status).toBe("active");
  });

  test("every redirect is checked again: private, metadata and other loopback addresses are refused", async () => {
    expectRefused(await create("to-private", modules.url("/to-private.ts")), /10\.0\.0\.1: a private address/);
    expectRefused(await create("to-metadata", modules.url("/to-metadata.ts")), /169\.254\.169\.254: a metadata address which is never allowed/);
    expectRefused(await create("to-loopback-v6", modules.url("/to-loopback-v6.ts")), /::1: a loopback address/);
  });

  test("the download is size-capped", async () => {
    expectRefused(await create("huge", modules.url("/huge.js")), /larger than the \d+-byte limit/);
  });

  test("a server error is a load failure, not a gateway failure", async () => {
    expectRefused(await create("missing", modules.url("/nothing-here.ts")), /answered HTTP 404/);
    expect((await fetch(`${gw.url}/health`)).status).toBe(200);
  });
});

describe("remote plugins are fetched only when every resolved address is public", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ auth: ADMIN_AUTH });
  });
  afterAll(() => gw.close());

  const create = async (name: string, path: string) =>
    (await jsonOf<PluginResponse>(await gw.admin("/api/plugins", { method: "POST", json: { name, path } }), 201)).plugin;

  test.each([
    ["loopback", "http://127.0.0.1:9/p.js"],
    ["loopback", "http://[::1]:9/p.js"],
    ["loopback", "http://[::ffff:127.0.0.1]:9/p.js"],
    ["private", "http://10.0.0.1/p.js"],
    ["private", "https://172.16.5.4/p.js"],
    ["private", "http://192.168.1.1/p.js"],
    ["private", "http://[fd00::1]/p.js"],
    ["cgnat", "http://100.64.0.1/p.js"],
  ])("a %s address (%s) is refused unless allow-listed", async (kind, url) => {
    expectRefused(await create(`literal-${crypto.randomUUID()}`, url), new RegExp(`an? ${kind} address not listed in server.plugin_download_private_allowlist`));
  });

  test.each([
    ["metadata", "http://169.254.169.254/p.js"],
    ["link-local", "http://[fe80::1]/p.js"],
    ["unroutable", "http://0.0.0.0:9/p.js"],
    ["unroutable", "http://192.0.2.7/p.js"],
  ])("a %s address (%s) is never allowed", async (kind, url) => {
    expectRefused(await create(`literal-${crypto.randomUUID()}`, url), new RegExp(`an? ${kind} address which is never allowed`));
  });

  test("a DNS name that resolves to loopback (localhost) is refused, and the server is never asked", async () => {
    let asked = 0;
    const watched = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => (asked++, new Response(TAGGING_SOURCE)) });
    try {
      expectRefused(await create("by-name", `http://localhost:${watched.port}/p.ts`), /localhost: it resolves to (127\.0\.0\.1|::1), a loopback address/);
      expect(asked).toBe(0);
    } finally {
      watched.stop(true);
    }
  });

  test("a loopback server listed nowhere is refused even on the URL the allow-listed gateway accepts", async () => {
    expectRefused(await create("remote", modules.url("/tagging-plugin.ts")), /127\.0\.0\.1: a loopback address/);
  });
});

describe("DNS names are checked by what they resolve to (injected resolver)", () => {
  let strict: TestGateway;
  let allowing: TestGateway;
  beforeAll(async () => {
    strict = await startGateway({ auth: ADMIN_AUTH }, { runtime: { resolveHost } });
    allowing = await startGateway({ auth: ADMIN_AUTH, server: { plugin_download_private_allowlist: ["127.0.0.0/8"] } }, { runtime: { resolveHost } });
  });
  afterAll(async () => {
    await strict.close();
    await allowing.close();
  });

  const create = async (gw: TestGateway, name: string, host: string) => {
    const json = { name, path: `http://${host}:${modules.server.port}/tagging-plugin.ts`, config: { tag: name } };
    return (await jsonOf<PluginResponse>(await gw.admin("/api/plugins", { method: "POST", json }), 201)).plugin;
  };

  test.each([
    ["loopback.example.test", "127.0.0.1, a loopback"],
    ["private.example.test", "10.1.2.3, a private"],
    ["link-local.example.test", "169.254.169.254, a metadata"],
    ["cgnat.example.test", "100.64.0.7, a cgnat"],
    ["ula.example.test", "fd12:3456::1, a private"],
    ["mixed.example.test", "192.168.0.10, a private"],
  ])("%s is refused: it resolves to %s address", async (host, reason) => {
    expectRefused(await create(strict, host.split(".")[0]!, host), new RegExp(`${host.replaceAll(".", "\\.")}: it resolves to ${reason}`));
  });

  test("a name resolving to an allow-listed address is downloaded from that address", async () => {
    const plugin = await create(allowing, "named", "plugins.example.test");
    expect(plugin.status).toMatchObject({ status: "active", types: ["llm", "http"] });
  });

  test("an allow-list entry opens only its own range", async () => {
    expectRefused(await create(allowing, "private", "private.example.test"), /a private address/);
  });
});

describe("a plugin that fails to load reports status error with its logs, and the gateway keeps running", () => {
  let upstream: MockOpenAI;
  let gw: TestGateway;
  beforeAll(async () => {
    upstream = startMockOpenAI();
    gw = await startGateway({ auth: ADMIN_AUTH, providers: { openai: { keys: [{ id: "k1", value: "sk-test" }], network_config: { base_url: upstream.baseUrl } } } });
  });
  afterAll(async () => {
    await gw.close();
    upstream.stop();
  });

  const create = async (name: string, path: string, config: Record<string, unknown> = {}) =>
    (await jsonOf<PluginResponse>(await gw.admin("/api/plugins", { method: "POST", json: { name, path, config } }), 201)).plugin;

  test("a module without a plugin, a missing file, and a plugin whose create() throws", async () => {
    expectRefused(await create("not-a-plugin", fixturePath("not-a-plugin.ts")), /default export is not a plugin/);
    expectRefused(await create("missing-file", fixturePath("no-such-plugin.ts")), /failed to load from .*no-such-plugin\.ts: no module at /);
    const failing = await create("cannot-start", fixturePath("failing-plugin.ts"), { fail_in: "create" });
    expectRefused(failing, /the plugin's backend is unreachable/);
    expect(failing.actualName).toBe("failing");

    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "still there?" }] });
    expect(completion.choices[0]!.message.content).toBe("echo: still there?");
  });
});
