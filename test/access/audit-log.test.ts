import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createClient } from "@libsql/client";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { startMockOpenAI } from "../support/mock-openai";
import { ADMIN, AUTH_CONFIG, bearer, call, createApiKey, json, login } from "./access-client";

interface AuditEvent {
  id: string;
  timestamp: string;
  initiator: { type: string; id: string };
  action: string;
  target: { type: string; id: string };
  outcome: "success" | "failure" | "denied";
  method: string;
  path: string;
  ip: string;
  summary: { status_code: number; request?: Record<string, unknown>; before?: unknown; after?: unknown };
}
interface AuditPage {
  audit_logs: AuditEvent[];
  count: number;
  total_count: number;
  limit: number;
  offset: number;
}

const PROVIDER_SECRET = "sk-upstream-very-secret-value-9911";
const WRONG_PASSWORD = "attempted-wrong-password-123";

let gw: TestGateway;
const audit = async (query = "") => json<AuditPage>(await gw.admin(`/api/governance/audit-logs${query}`));

beforeAll(async () => {
  gw = await startGateway({ edition: "enterprise", auth: AUTH_CONFIG });
});
afterAll(() => gw.close());

describe("every management write is recorded", () => {
  test("a provider created with a key: who, what, where, outcome, and no secret in the summary", async () => {
    const before = Date.now();
    const created = await gw.admin("/api/providers", {
      method: "POST",
      json: { provider: "groq", keys: [{ id: "g1", value: PROVIDER_SECRET }], network_config: { base_url: "http://127.0.0.1:9/v1", extra_headers: { "x-tenant-token": "tenant-secret-header" } } },
    });
    expect(created.status).toBe(201);
    const { audit_logs } = await audit("?action=ModelProvider:Create");
    expect(audit_logs).toHaveLength(1);
    const event = audit_logs[0]!;
    expect(event).toMatchObject({
      initiator: { type: "admin", id: ADMIN.username },
      action: "ModelProvider:Create",
      target: { type: "ModelProvider", id: "groq" },
      outcome: "success",
      method: "POST",
      path: "/api/providers",
      ip: "127.0.0.1",
      summary: { status_code: 201, request: { provider: "groq", keys: [{ id: "g1", value: "[redacted]" }] } },
    });
    expect(Date.parse(event.timestamp)).toBeGreaterThanOrEqual(before - 1000);
    const everything = JSON.stringify((await audit("?limit=1000")).audit_logs);
    expect(everything).not.toContain(PROVIDER_SECRET);
    expect(everything).not.toContain("tenant-secret-header");
    expect(everything).not.toContain(ADMIN.password);
  });

  test("a refused write is recorded as denied, with the key that tried it", async () => {
    const key = await createApiKey(gw, "read-only", ["ModelProvider:View"]);
    await expectGatewayError(await call(gw, "/api/providers/groq", { method: "DELETE", headers: bearer(key) }), 403);
    const { audit_logs } = await audit("?action=ModelProvider:Delete&outcome=denied");
    expect(audit_logs).toHaveLength(1);
    expect(audit_logs[0]).toMatchObject({ initiator: { type: "api_key" }, target: { type: "ModelProvider", id: "groq" }, summary: { status_code: 403 } });
    expect(JSON.stringify(audit_logs)).not.toContain(key);
  });

  test("a failed write is recorded as failure", async () => {
    await expectGatewayError(await gw.admin("/api/providers/nope", { method: "DELETE" }), 404);
    const { audit_logs } = await audit("?action=ModelProvider:Delete&outcome=failure");
    expect(audit_logs.map((event) => event.target.id)).toEqual(["nope"]);
  });

  test("creating an API key records it without the key value", async () => {
    const created = await json<{ api_key: { id: string }; key: string }>(await gw.admin("/api/api-keys", { method: "POST", json: { name: "audited", scopes: [] } }), 201);
    const { audit_logs } = await audit(`?action=APIKeys:Create&target=${created.api_key.id}`);
    expect(audit_logs).toHaveLength(1);
    expect(audit_logs[0]!.summary.after).toMatchObject({ id: created.api_key.id, name: "audited" });
    expect(JSON.stringify(audit_logs)).not.toContain(created.key);
  });
});

describe("every login is recorded, success and failure", () => {
  test("a failed and a successful login", async () => {
    await expectGatewayError(await call(gw, "/api/session/login", { method: "POST", json: { username: ADMIN.username, password: WRONG_PASSWORD } }), 401);
    expect((await call(gw, "/api/session/login", { method: "POST", json: { username: ADMIN.username, password: ADMIN.password } })).status).toBe(200);
    const failures = (await audit("?action=Session:Login&outcome=failure")).audit_logs;
    const successes = (await audit("?action=Session:Login&outcome=success")).audit_logs;
    expect(failures.length).toBeGreaterThanOrEqual(1);
    expect(failures[0]).toMatchObject({ initiator: { id: ADMIN.username }, summary: { status_code: 401, request: { username: ADMIN.username, password: "[redacted]" } } });
    expect(successes[0]).toMatchObject({ initiator: { type: "admin", id: ADMIN.username }, outcome: "success" });
    expect(JSON.stringify([...failures, ...successes])).not.toContain(WRONG_PASSWORD);
    expect(JSON.stringify(successes)).not.toContain(ADMIN.password);
  });
});

describe("writes outside the permission table are recorded under their own action", () => {
  test("a logout and a change of the admin account", async () => {
    const session = await login(gw, ADMIN.username, ADMIN.password);
    expect((await call(gw, "/api/session/logout", { method: "POST", headers: bearer(session) })).status).toBeLessThan(300);
    expect((await audit("?action=Session:Logout")).audit_logs[0]).toMatchObject({ action: "Session:Logout", initiator: { id: ADMIN.username } });
    await gw.admin("/api/config/auth", { method: "PUT", json: { admin_username: ADMIN.username, admin_password: ADMIN.password } });
    expect((await audit("?action=Config:UpdateAuth")).audit_logs[0]).toMatchObject({ action: "Config:UpdateAuth", method: "PUT", path: "/api/config/auth" });
  });
});

describe("GET /api/governance/audit-logs filters and pages", () => {
  test("initiator, target, time range, search and pagination", async () => {
    const all = await audit("?limit=1000");
    expect(all.total_count).toBe(all.count);
    const newestFirst = all.audit_logs.map((event) => Date.parse(event.timestamp));
    expect([...newestFirst].sort((a, b) => b - a)).toEqual(newestFirst);

    expect((await audit(`?initiator=${ADMIN.username}`)).audit_logs.every((event) => event.initiator.id === ADMIN.username)).toBe(true);
    expect((await audit("?target_type=ModelProvider&target=groq")).audit_logs.every((event) => event.target.id === "groq")).toBe(true);
    expect((await audit("?search=API-KEYS")).audit_logs.every((event) => event.path.startsWith("/api/api-keys"))).toBe(true);

    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await audit(`?start_time=${encodeURIComponent(future)}`)).total_count).toBe(0);
    expect((await audit(`?end_time=${encodeURIComponent(future)}`)).total_count).toBe(all.total_count);

    const page = await audit("?limit=2&offset=1");
    expect(page).toMatchObject({ count: 2, total_count: all.total_count, limit: 2, offset: 1 });
    expect(page.audit_logs.map((event) => event.id)).toEqual(all.audit_logs.slice(1, 3).map((event) => event.id));
  });

  test("GET /{id} returns one event; an unknown id is a 404", async () => {
    const [first] = (await audit("?limit=1")).audit_logs;
    expect(await json(await gw.admin(`/api/governance/audit-logs/${first!.id}`))).toMatchObject({ id: first!.id, action: first!.action });
    await expectGatewayError(await gw.admin("/api/governance/audit-logs/not-an-event"), 404);
  });

  test("reading the log needs AuditLogs:View", async () => {
    const key = await createApiKey(gw, "no-audit", ["ModelProvider:View"]);
    await expectGatewayError(await call(gw, "/api/governance/audit-logs", { headers: bearer(key) }), 403);
    const auditor = await createApiKey(gw, "auditor", ["AuditLogs:View"]);
    expect((await call(gw, "/api/governance/audit-logs", { headers: bearer(auditor) })).status).toBe(200);
  });
});

describe("signature verification (spec 4.6)", () => {
  test("an untouched event verifies; a row edited in the database does not", async () => {
    const { audit_logs } = await audit("?action=ModelProvider:Create");
    const event = audit_logs[0]!;
    const verified = await json<{ valid: boolean; computed: string; stored: string }>(await gw.admin(`/api/governance/audit-logs/${event.id}/verify`));
    expect(verified.valid).toBe(true);
    expect(verified.computed).toBe(verified.stored);
    expect(verified.stored).toMatch(/^[0-9a-f]{64}$/);

    const client = createClient({ url: gw.databaseUrl });
    try {
      await client.execute({ sql: "UPDATE audit_events SET initiator_id = 'someone-else' WHERE id = ?", args: [event.id] });
    } finally {
      client.close();
    }
    const tampered = await json<{ valid: boolean; computed: string; stored: string }>(await gw.admin(`/api/governance/audit-logs/${event.id}/verify`));
    expect(tampered.valid).toBe(false);
    expect(tampered.stored).toBe(verified.stored);
    expect(tampered.computed).not.toBe(tampered.stored);
  });

  test("editing the summary or forging the signature is caught too", async () => {
    const [first, second] = (await audit("?action=Session:Login")).audit_logs;
    const client = createClient({ url: gw.databaseUrl });
    try {
      await client.execute({ sql: "UPDATE audit_events SET summary = '{\"status_code\":200}' WHERE id = ?", args: [first!.id] });
      await client.execute({ sql: "UPDATE audit_events SET signature = ? WHERE id = ?", args: ["0".repeat(64), second!.id] });
    } finally {
      client.close();
    }
    for (const id of [first!.id, second!.id]) expect((await json<{ valid: boolean }>(await gw.admin(`/api/governance/audit-logs/${id}/verify`))).valid).toBe(false);
  });

  test("the deprecated GET /api/audit-logs/{id}/verify answers the same, marked deprecated", async () => {
    const [event] = (await audit("?action=APIKeys:Create")).audit_logs;
    const current = await json(await gw.admin(`/api/governance/audit-logs/${event!.id}/verify`));
    const response = await gw.admin(`/api/audit-logs/${event!.id}/verify`);
    expect(response.headers.get("deprecation")).toBe("true");
    expect(response.headers.get("link")).toBe(`</api/governance/audit-logs/${event!.id}/verify>; rel="successor-version"`);
    expect(await json(response)).toEqual(current);
    await expectGatewayError(await gw.admin("/api/audit-logs/unknown/verify"), 404);
  });
});

describe("inference is not management", () => {
  test("a chat completion needs no management credential and leaves no audit event", async () => {
    const upstream = startMockOpenAI();
    try {
      const provider = { provider: "openai", keys: [{ id: "o1", value: "sk-audit-inference", models: ["*"] }], network_config: { base_url: upstream.baseUrl } };
      expect((await gw.admin("/api/providers", { method: "POST", json: provider })).status).toBe(201);
      const body = JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
      const response = await fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body });
      expect(response.status).toBe(200);
      expect((await audit("?limit=1000")).audit_logs.filter((event) => !event.path.startsWith("/api/"))).toEqual([]);
    } finally {
      upstream.stop();
    }
  });
});

describe("on OSS", () => {
  test("audit logs answer 404 saying they need the enterprise edition", async () => {
    const oss = await startGateway();
    try {
      for (const path of ["/api/governance/audit-logs", "/api/governance/audit-logs/x/verify", "/api/audit-logs/x/verify"]) {
        await expectGatewayError(await oss.admin(path), 404, { errorType: "caller_enterprise_feature" });
      }
    } finally {
      await oss.close();
    }
  });
});
