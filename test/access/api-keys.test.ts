import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createClient } from "@libsql/client";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { AUTH_CONFIG, bearer, call, createApiKey, json, permissionIds } from "./access-client";

interface ApiKey {
  id: string;
  name: string;
  description: string | null;
  scopes: number[];
  key_prefix: string;
  expires_at: string | null;
}

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway({ edition: "enterprise", auth: AUTH_CONFIG });
});
afterAll(() => gw.close());

describe("POST /api/api-keys (spec 4.2)", () => {
  test("the server generates the key and returns it once; afterwards only key_prefix", async () => {
    const scopes = await permissionIds(gw, "ModelProvider:View");
    const created = await json<{ api_key: ApiKey; key: string }>(
      await gw.admin("/api/api-keys", { method: "POST", json: { name: "ci-pipeline", description: "deploys", scopes, expires_at: null } }),
      201,
    );
    expect(created.key).toStartWith("gwk_");
    expect(created.api_key).toMatchObject({ name: "ci-pipeline", description: "deploys", scopes, expires_at: null });
    expect(created.key.startsWith(created.api_key.key_prefix)).toBe(true);
    expect(created.api_key.key_prefix.length).toBeLessThan(created.key.length / 2);

    const again = await gw.admin(`/api/api-keys/${created.api_key.id}`);
    const listed = await gw.admin("/api/api-keys");
    for (const response of [again, listed]) expect(await response.text()).not.toContain(created.key);

    const client = createClient({ url: gw.databaseUrl });
    try {
      expect(JSON.stringify((await client.execute("SELECT * FROM management_api_keys")).rows)).not.toContain(created.key);
    } finally {
      client.close();
    }
  });

  test("a key value supplied by the caller is refused: only the server generates keys", async () => {
    const chosen = "gwk_chosen-by-the-caller";
    await expectGatewayError(await gw.admin("/api/api-keys", { method: "POST", json: { name: "chosen", scopes: [], key: chosen } }), 400, { param: "key" });
    await expectGatewayError(await call(gw, "/api/session/logout", { method: "POST", headers: bearer(chosen) }), 401);
  });

  test("scopes may be left out: the key is created holding no permission", async () => {
    const response = await gw.admin("/api/api-keys", { method: "POST", json: { name: "no-scopes-yet" } });
    expect(response.status).toBe(201);
    const { api_key, key } = (await response.json()) as { api_key: ApiKey; key: string };
    expect(api_key.scopes).toEqual([]);
    expect((await call(gw, "/api/providers", { headers: bearer(key) })).status).toBe(403);
  });

  test("names are unique", async () => {
    await createApiKey(gw, "unique-name", []);
    await expectGatewayError(await gw.admin("/api/api-keys", { method: "POST", json: { name: "unique-name", scopes: [] } }), 409, { param: "name" });
  });

  test("an unknown permission id is a 400 naming it", async () => {
    await expectGatewayError(await gw.admin("/api/api-keys", { method: "POST", json: { name: "bad-scope", scopes: [999999] } }), 400, { param: "scopes[0]" });
  });

  test("the key carries only its scopes, not its creator's role", async () => {
    const key = await createApiKey(gw, "read-providers", ["ModelProvider:View"]);
    expect((await call(gw, "/api/providers", { headers: bearer(key) })).status).toBe(200);
    const denied = await call(gw, "/api/providers", { method: "POST", headers: bearer(key), json: { provider: "groq" } });
    const body = await expectGatewayError(denied, 403, { errorType: "policy_permission_denied" });
    expect(body.error.message).toContain("ModelProvider:Create");
    await expectGatewayError(await call(gw, "/api/api-keys", { headers: bearer(key) }), 403);
  });

  test("a caller cannot grant a scope it lacks: 403", async () => {
    const creator = await createApiKey(gw, "key-minter", ["APIKeys:Create", "ModelProvider:View"]);
    const allowed = await call(gw, "/api/api-keys", { method: "POST", headers: bearer(creator), json: { name: "minted", scopes: await permissionIds(gw, "ModelProvider:View") } });
    expect((await json<{ api_key: ApiKey }>(allowed, 201)).api_key.name).toBe("minted");

    const tooMuch = await call(gw, "/api/api-keys", { method: "POST", headers: bearer(creator), json: { name: "escalated", scopes: await permissionIds(gw, "ModelProvider:View", "ModelProvider:Delete") } });
    const body = await expectGatewayError(tooMuch, 403, { errorType: "policy_grant_exceeds_own_permissions" });
    expect(body.error.message).toContain("ModelProvider:Delete");
    expect(body.error.message).not.toContain("ModelProvider:View");
    const names = (await json<{ api_keys: ApiKey[] }>(await gw.admin("/api/api-keys?search=escalated"))).api_keys;
    expect(names).toEqual([]);
  });

  test("raising a key's scopes through PUT is a grant too", async () => {
    const editor = await createApiKey(gw, "key-editor", ["APIKeys:Update", "APIKeys:View", "Logs:View"]);
    const target = await json<{ api_key: ApiKey }>(await gw.admin("/api/api-keys", { method: "POST", json: { name: "edited", scopes: await permissionIds(gw, "Config:View") } }), 201);
    const path = `/api/api-keys/${target.api_key.id}`;
    // Keeping a scope the editor lacks is fine; adding one it holds is fine.
    const kept = await call(gw, path, { method: "PUT", headers: bearer(editor), json: { scopes: await permissionIds(gw, "Config:View", "Logs:View") } });
    expect((await json<ApiKey>(kept)).scopes).toEqual(await permissionIds(gw, "Config:View", "Logs:View"));
    await expectGatewayError(await call(gw, path, { method: "PUT", headers: bearer(editor), json: { scopes: await permissionIds(gw, "Config:Update") } }), 403);
  });
});

describe("expired and revoked keys are 401", () => {
  test("an expires_at that names no moment (February 30) is a 400, not a date moved to March", async () => {
    await expectGatewayError(await gw.admin("/api/api-keys", { method: "POST", json: { name: "feb-30", scopes: [], expires_at: "2030-02-30T00:00:00Z" } }), 400, { param: "expires_at" });
  });

  test("a key past its expires_at is refused", async () => {
    const key = await createApiKey(gw, "short-lived", ["ModelProvider:View"], { expires_at: new Date(Date.now() + 60_000).toISOString() });
    expect((await call(gw, "/api/providers", { headers: bearer(key) })).status).toBe(200);
    const id = (await json<{ api_keys: ApiKey[] }>(await gw.admin("/api/api-keys?search=short-lived"))).api_keys[0]!.id;
    await gw.admin(`/api/api-keys/${id}`, { method: "PUT", json: { expires_at: new Date(Date.now() - 1000).toISOString() } });
    const response = await call(gw, "/api/providers", { headers: bearer(key) });
    const text = await response.clone().text();
    await expectGatewayError(response, 401, { errorType: "caller_api_key_expired" });
    expect(text).not.toContain(key);
  });

  test("a deleted key is refused", async () => {
    const key = await createApiKey(gw, "revoked", ["ModelProvider:View"]);
    const id = (await json<{ api_keys: ApiKey[] }>(await gw.admin("/api/api-keys?search=revoked"))).api_keys[0]!.id;
    expect(await json(await gw.admin(`/api/api-keys/${id}`, { method: "DELETE" }))).toEqual({ message: "API key deleted successfully" });
    await expectGatewayError(await call(gw, "/api/providers", { headers: bearer(key) }), 401, { errorType: "caller_invalid_credentials" });
    await expectGatewayError(await gw.admin(`/api/api-keys/${id}`), 404);
  });

  test("a key that was never issued is refused", async () => {
    await expectGatewayError(await call(gw, "/api/providers", { headers: bearer("gwk_made-up-value") }), 401);
  });
});

describe("GET /api/api-keys (spec 4.3)", () => {
  let listGw: TestGateway;
  beforeAll(async () => {
    listGw = await startGateway({ edition: "enterprise" });
    for (const name of ["Alpha-Reader", "alpha-writer", "beta", "ALPHA-admin", "gamma_100%"]) await createApiKey(listGw, name, []);
  });
  afterAll(() => listGw.close());

  const list = async (query: string) => json<{ api_keys: ApiKey[]; count: number; total_count: number; limit: number; offset: number }>(await listGw.admin(`/api/api-keys${query}`));

  test("without parameters every key comes back and total_count equals count", async () => {
    const page = await list("");
    expect(page.api_keys.map((key) => key.name)).toEqual(["Alpha-Reader", "alpha-writer", "beta", "ALPHA-admin", "gamma_100%"]);
    expect(page).toMatchObject({ count: 5, total_count: 5, offset: 0 });
  });

  test("search matches the name case-insensitively, literally", async () => {
    expect((await list("?search=alpha")).api_keys.map((key) => key.name)).toEqual(["Alpha-Reader", "alpha-writer", "ALPHA-admin"]);
    expect((await list(`?search=${encodeURIComponent("_100%")}`)).api_keys.map((key) => key.name)).toEqual(["gamma_100%"]);
    expect((await list(`?search=${encodeURIComponent("%")}`)).api_keys.map((key) => key.name)).toEqual(["gamma_100%"]);
  });

  test("limit and offset page through the matches; total_count counts them all", async () => {
    const page = await list("?search=ALPHA&limit=2&offset=1");
    expect(page.api_keys.map((key) => key.name)).toEqual(["alpha-writer", "ALPHA-admin"]);
    expect(page).toMatchObject({ count: 2, total_count: 3, limit: 2, offset: 1 });
    expect(await list("?limit=2&offset=4")).toMatchObject({ count: 1, total_count: 5 });
  });

  test("a bad limit or offset is a 400 naming the parameter", async () => {
    await expectGatewayError(await listGw.admin("/api/api-keys?limit=0"), 400, { param: "limit" });
    await expectGatewayError(await listGw.admin("/api/api-keys?offset=-1"), 400, { param: "offset" });
  });

  test("offset without limit skips that many and returns the rest", async () => {
    expect(await list("?offset=3")).toMatchObject({ count: 2, total_count: 5, offset: 3 });
    await expectGatewayError(await listGw.admin("/api/api-keys?limit=ten"), 400, { param: "limit" });
  });
});

describe("on OSS", () => {
  test("management API keys are not served: 404 saying they need the enterprise edition", async () => {
    const oss = await startGateway();
    try {
      for (const [method, path] of [
        ["GET", "/api/api-keys"],
        ["POST", "/api/api-keys"],
        ["DELETE", "/api/api-keys/anything"],
      ] as const) {
        const body = await expectGatewayError(await oss.admin(path, { method, json: method === "POST" ? { name: "x", scopes: [] } : undefined }), 404, { errorType: "caller_enterprise_feature" });
        expect(body.error.message).toContain("enterprise edition");
      }
    } finally {
      await oss.close();
    }
  });
});
