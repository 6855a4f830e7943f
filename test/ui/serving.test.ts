import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { INITIAL_JS_BUDGET_BYTES } from "../../src/ui/build";
import { dashboardRoutes } from "../../src/ui/routes";
import { startGateway, type TestGateway } from "../support/gateway";

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw.close());

const assetsOf = (html: string) => [...html.matchAll(/(?:src|href)="(\/ui\/assets\/[^"]+)"/g)].map((match) => match[1]!);

describe("the dashboard is served by the gateway itself", () => {
  test("GET / is the app's page, never cached, naming content-hashed assets", async () => {
    const response = await fetch(`${gw.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toStartWith("text/html");
    expect(response.headers.get("cache-control")).toBe("no-cache");
    const html = await response.text();
    const assets = assetsOf(html);
    expect(assets.some((path) => /\/main-[a-z0-9]+\.js$/.test(path))).toBe(true);
    expect(assets.some((path) => path.endsWith(".css"))).toBe(true);
    // Works offline: nothing is loaded from another host.
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
  });

  test("client routes under /ui/ answer with the same page; the API keeps its JSON 404", async () => {
    const page = await (await fetch(`${gw.url}/`)).text();
    for (const path of ["/ui/logs", "/ui/governance/virtual-keys"]) {
      const response = await fetch(`${gw.url}${path}`);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(page);
    }
    const api = await fetch(`${gw.url}/api/no-such-thing`, { headers: { "x-gateway-setup-token": "test-setup-token" } });
    expect(api.headers.get("content-type")).toContain("application/json");
  });

  test("assets are cached for a year, gzipped when asked, and the first page's JavaScript stays within budget", async () => {
    const [script] = assetsOf(await (await fetch(`${gw.url}/`)).text()).filter((path) => path.endsWith(".js"));
    const plain = await fetch(`${gw.url}${script}`, { headers: { "accept-encoding": "identity" }, decompress: false });
    expect(plain.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(plain.headers.get("content-type")).toStartWith("text/javascript");
    const body = new Uint8Array(await plain.arrayBuffer());
    const zipped = await fetch(`${gw.url}${script}`, { headers: { "accept-encoding": "gzip" }, decompress: false });
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    const gzipped = new Uint8Array(await zipped.arrayBuffer());
    expect(Bun.gunzipSync(gzipped)).toEqual(body);
    expect(gzipped.byteLength).toBeLessThanOrEqual(INITIAL_JS_BUDGET_BYTES);
  });

  test("an asset that does not exist is a 404", async () => {
    const response = await fetch(`${gw.url}/ui/assets/main-00000000.js`);
    expect(response.status).toBe(404);
  });
});

describe("the bundle is built lazily", () => {
  test("not when the gateway starts, but on the first request for the dashboard, and once", async () => {
    const built: string[] = [];
    const app = new Elysia().use(dashboardRoutes((line) => built.push(line))).listen({ port: 0, hostname: "127.0.0.1" });
    try {
      expect(built).toEqual([]);
      const url = `http://127.0.0.1:${app.server!.port}`;
      const [first, second] = await Promise.all([fetch(`${url}/`), fetch(`${url}/ui/logs`)]);
      expect([first.status, second.status]).toEqual([200, 200]);
      await fetch(`${url}/`);
      expect(built).toHaveLength(1);
      expect(built[0]).toMatch(/initial JavaScript [\d.]+ KB gzipped/);
    } finally {
      await app.stop(true);
    }
  });
});
