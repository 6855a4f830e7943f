import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { type Browser, launchBrowser } from "../support/browser";
import { SETUP_TOKEN, startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

/** The headers openai-node sends from a browser, as its preflight asks for them. */
const OPENAI_SDK_HEADERS = "authorization, content-type, x-stainless-arch, x-stainless-lang, x-stainless-os, x-stainless-package-version, x-stainless-retry-count, x-stainless-runtime, x-stainless-runtime-version, x-stainless-timeout";
const ANTHROPIC_SDK_HEADERS = "anthropic-dangerous-direct-browser-access, anthropic-version, content-type, x-api-key, x-stainless-lang";

const preflight = (url: string, origin: string, method = "POST", headers = "content-type, authorization") =>
  fetch(url, { method: "OPTIONS", headers: { origin, "access-control-request-method": method, "access-control-request-headers": headers } });

const listed = (value: string | null) => (value ?? "").split(",").map((name) => name.trim().toLowerCase()).filter(Boolean);

describe("without cors configured", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.close());

  test("no origin gets a preflight answer or CORS headers: browsers keep pages off the gateway", async () => {
    const answer = await preflight(`${gw.url}/v1/chat/completions`, "https://app.example");
    expect(answer.headers.get("access-control-allow-origin")).toBeNull();
    const version = await fetch(`${gw.url}/api/version`, { headers: { origin: "https://app.example" } });
    expect(version.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("cors.allowed_origins with `*` and a named console", () => {
  const CONSOLE = "https://console.example";
  let gw: TestGateway;
  let upstream: MockOpenAI;
  let virtualKey: string;
  beforeAll(async () => {
    upstream = startMockOpenAI();
    gw = await startGateway({
      cors: { allowed_origins: ["*", CONSOLE], allow_credentials: true, max_age_seconds: 120 },
      providers: { openai: { keys: [{ id: "oa", value: "sk-upstream", models: ["*"] }], network_config: { base_url: upstream.baseUrl } } },
    });
    const created = await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name: "browser" } });
    virtualKey = ((await created.json()) as { virtual_key: { value: string } }).virtual_key.value;
  });
  afterAll(async () => {
    await gw.close();
    upstream.stop();
  });

  test("a preflight of the OpenAI SDK's call from any page answers 204 with `*`, its headers allowed, and no credentials", async () => {
    const answer = await preflight(`${gw.url}/v1/chat/completions`, "https://notebook.example", "POST", OPENAI_SDK_HEADERS);
    expect(answer.status).toBe(204);
    expect(answer.headers.get("access-control-allow-origin")).toBe("*");
    expect(answer.headers.get("access-control-allow-credentials")).toBeNull();
    expect(listed(answer.headers.get("access-control-allow-headers"))).toEqual(listed(OPENAI_SDK_HEADERS));
    expect(listed(answer.headers.get("access-control-allow-methods"))).toContain("post");
    expect(answer.headers.get("access-control-max-age")).toBe("120");
  });

  test("the Anthropic SDK's browser headers are allowed on the /anthropic mount; a header no client sends is not", async () => {
    const answer = await preflight(`${gw.url}/anthropic/v1/messages`, "https://notebook.example", "POST", `${ANTHROPIC_SDK_HEADERS}, x-made-up`);
    expect(answer.status).toBe(204);
    expect(listed(answer.headers.get("access-control-allow-headers"))).toEqual(listed(ANTHROPIC_SDK_HEADERS));
  });

  test("an MCP client of the 2026-07-28 revision may send the headers that mirror its request on /mcp", async () => {
    const mcpHeaders = "content-type, mcp-protocol-version, mcp-method, mcp-name, mcp-param-region";
    const answer = await preflight(`${gw.url}/mcp/everything`, "https://notebook.example", "POST", mcpHeaders);
    expect(answer.status).toBe(204);
    expect(listed(answer.headers.get("access-control-allow-headers"))).toEqual(listed(mcpHeaders));
  });

  test("the management API answers the named console's preflight with its origin and credentials, and refuses `*`'s with the error body", async () => {
    const named = await preflight(`${gw.url}/api/governance/virtual-keys`, CONSOLE, "GET", "x-gateway-setup-token");
    expect(named.status).toBe(204);
    expect(named.headers.get("access-control-allow-origin")).toBe(CONSOLE);
    expect(named.headers.get("access-control-allow-credentials")).toBe("true");
    expect(named.headers.get("vary")).toContain("Origin");
    const other = await preflight(`${gw.url}/api/governance/virtual-keys`, "https://notebook.example", "GET");
    expect(other.status).toBe(403);
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
    expect(((await other.json()) as { extra_fields: { error_type: string } }).extra_fields.error_type).toBe("caller_cors_origin_refused");
  });

  test("an actual call carries the origin and the headers a script may read, its refusals too", async () => {
    const reply = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { origin: "https://notebook.example", authorization: `Bearer ${virtualKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(reply.status).toBe(200);
    expect(reply.headers.get("access-control-allow-origin")).toBe("*");
    expect(listed(reply.headers.get("access-control-expose-headers"))).toContain("x-request-id");
    // A page that asked for a resumable stream reads its id, to resume it after a reload.
    expect(listed(reply.headers.get("access-control-expose-headers"))).toContain("x-gw-stream-id");
    const refused = await fetch(`${gw.url}/api/governance/virtual-keys`, { headers: { origin: CONSOLE } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("access-control-allow-origin")).toBe(CONSOLE);
    const listedKeys = await fetch(`${gw.url}/api/governance/virtual-keys`, { headers: { origin: CONSOLE, "x-gateway-setup-token": SETUP_TOKEN } });
    expect({ status: listedKeys.status, origin: listedKeys.headers.get("access-control-allow-origin") }).toEqual({ status: 200, origin: CONSOLE });
  });

  test("routes outside inference and /api (the dashboard, health) take no part", async () => {
    const health = await fetch(`${gw.url}/health`, { headers: { origin: "https://notebook.example" } });
    expect(health.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("the OpenAI SDK in a browser page (dangerouslyAllowBrowser)", () => {
  let page: ReturnType<typeof Bun.serve>;
  let gw: TestGateway;
  let upstream: MockOpenAI;
  let browser: Browser;
  let virtualKey: string;
  beforeAll(async () => {
    const bundle = await Bun.build({ entrypoints: [join(import.meta.dir, "cors-page.ts")], target: "browser" });
    const script = await bundle.outputs[0]!.text();
    page = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: (request) =>
        new URL(request.url).pathname === "/app.js"
          ? new Response(script, { headers: { "content-type": "text/javascript" } })
          : new Response('<!doctype html><title>notebook</title><script type="module" src="/app.js"></script>', { headers: { "content-type": "text/html" } }),
    });
    upstream = startMockOpenAI();
    gw = await startGateway({
      cors: { allowed_origins: [`http://127.0.0.1:${page.port}`] },
      providers: { openai: { keys: [{ id: "oa", value: "sk-upstream", models: ["*"] }], network_config: { base_url: upstream.baseUrl } } },
    });
    const created = await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name: "page" } });
    virtualKey = ((await created.json()) as { virtual_key: { value: string } }).virtual_key.value;
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await gw.close();
    upstream.stop();
    page.stop(true);
  });

  test("a chat completion from a page on another origin reaches the model and the page reads the reply", async () => {
    const watched = await browser.open(`http://127.0.0.1:${page.port}/`);
    const content = await watched.page.evaluate(
      ([baseURL, apiKey]) => (globalThis as unknown as { chat(baseURL: string, apiKey: string): Promise<string> }).chat(baseURL!, apiKey!),
      [`${gw.url}/v1`, virtualKey],
    );
    expect(content).toBe("echo: from the page");
    expect(watched.problems()).toEqual([]);
  });
});
