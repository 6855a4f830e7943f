import { afterAll, afterEach, beforeAll, describe, expect, setSystemTime, test } from "bun:test";
import { createClient } from "@libsql/client";
import { AUTH_CONFIG, ADMIN, basicToken, bearer, call, createApiKey, login } from "../access/access-client";
import { expectGatewayError } from "../support/gateway-error";
import { SETUP_TOKEN, type TestGateway } from "../support/gateway";
import { type McpHttpServer, startMcpHttpServer } from "../support/mcp-http-server";
import { text } from "../support/mcp-tools";
import { type ClientView, createMcpClient, createVirtualKey, executeTool, startMcpGateway, toolContent } from "./support";

interface AuthRequired {
  kind: string;
  mcp_client_id: string;
  mcp_client_name: string;
  message: string;
  authorize_url: string;
  session_id: string;
}

const FLOW_TTL_SECONDS = 600;
/** Tokens the upstream accepts in x-user-token; a test may revoke one. */
const accepted = new Set(["alice-token", "bob-token"]);

let gw: TestGateway;
let upstream: McpHttpServer;
let notes: ClientView;
let alice: { id: string; value: string };
let submitKey: string;

beforeAll(async () => {
  upstream = startMcpHttpServer({
    requireHeader: { name: "x-user-token", accepted: () => [...accepted] },
    tools: { whoami: { description: "Who the upstream thinks is calling", run: (_, headers) => text(`token ${String(headers["x-user-token"])}`) } },
  });
  gw = await startMcpGateway({ edition: "enterprise", auth: AUTH_CONFIG, mcp: { per_user_flow_ttl_seconds: FLOW_TTL_SECONDS } });
  notes = await createMcpClient(gw, { name: "notes", connection_type: "http", connection_string: upstream.url, auth_type: "per_user_headers", per_user_header_keys: ["X-User-Token"], headers: { "x-team": "platform" }, tools_to_execute: ["*"] });
  alice = await createVirtualKey(gw, "alice");
  submitKey = await createApiKey(gw, "header-submitter", ["MCP:Update"]);
});
afterAll(async () => {
  await gw.close();
  await upstream.stop();
});
afterEach(() => setSystemTime());

const asAlice = () => ({ "x-gw-vk": alice.value });

/** Calls the tool as `headers` expecting mcp_auth_required, and returns it. */
async function authRequired(headers: Record<string, string>): Promise<AuthRequired> {
  const body = await expectGatewayError(await executeTool(gw, "notes-whoami", {}, headers), 401, { errorType: "caller_mcp_auth_required" });
  return (body.extra_fields as unknown as { mcp_auth_required: AuthRequired }).mcp_auth_required;
}

const flowPath = (id: string) => `/api/mcp/per-user-headers/flows/${id}`;
const submit = (id: string, body: unknown, headers: Record<string, string> = bearer(submitKey)) => call(gw, flowPath(id), { method: "PUT", headers, json: body });

describe("a per_user_headers client without the caller's values", () => {
  test("answers 401 with extra_fields.mcp_auth_required pointing at a new flow", async () => {
    const required = await authRequired(asAlice());
    expect(required).toMatchObject({ kind: "headers", mcp_client_id: notes.id, mcp_client_name: "notes" });
    expect(required.authorize_url).toStartWith(`${gw.url}${flowPath(required.session_id)}#t=`);
    expect(required.message).toContain(required.authorize_url);
    expect(upstream.calls).toHaveLength(0);
    const logs = await (await gw.admin("/api/mcp-logs?tool_names=whoami")).text();
    expect(logs).toContain(required.session_id);
    expect(logs).not.toContain(required.authorize_url.split("#t=")[1]!);
  });

  test("a caller with neither a virtual key nor an MCP session id has no identity to store values for", async () => {
    await expectGatewayError(await executeTool(gw, "notes-whoami"), 401, { errorType: "caller_mcp_identity_required" });
  });
});

describe("GET /api/mcp/per-user-headers/flows", () => {
  test("lists the flows waiting for values with their client and owner, filtered by state, never a token", async () => {
    const { session_id, authorize_url } = await authRequired(asAlice());
    const list = async (query = "") => {
      const response = await gw.admin(`/api/mcp/per-user-headers/flows${query}`);
      expect(response.status).toBe(200);
      return (await response.json()) as { flows: Array<Record<string, unknown>>; count: number };
    };
    const pending = await list("?state=pending");
    expect(pending.flows.find((flow) => flow.id === session_id)).toMatchObject({ status: "pending", flow_mode: "virtual_key", virtual_key_id: alice.id, mcp_client: { id: notes.id, name: "notes" }, required_header_keys: ["x-user-token"] });
    expect(JSON.stringify(await list())).not.toContain(authorize_url.split("#t=")[1]!);
    expect((await list("?state=expired")).flows.map((flow) => flow.id)).not.toContain(session_id);
    await expectGatewayError(await gw.admin("/api/mcp/per-user-headers/flows?state=finished"), 400, { param: "state" });
  });
});

describe("GET /api/mcp/per-user-headers/flows/{id}", () => {
  test("shows the keys to fill in, never a value", async () => {
    const { session_id } = await authRequired(asAlice());
    const response = await gw.admin(flowPath(session_id));
    expect(response.status).toBe(200);
    const flow = (await response.json()) as Record<string, unknown>;
    expect(flow).toMatchObject({ id: session_id, flow_mode: "virtual_key", status: "pending", virtual_key_id: alice.id, mcp_client: { id: notes.id, name: "notes" }, required_header_keys: ["x-user-token"], admin_header_keys: ["x-team"], has_active_credential: false });
    expect(JSON.stringify(flow)).not.toContain("platform");
  });

  test("404 for an unknown flow", async () => {
    await expectGatewayError(await gw.admin(flowPath("no-such-flow")), 404);
  });
});

describe("PUT /api/mcp/per-user-headers/flows/{id} (spec 4.13)", () => {
  test("accepts only Authorization: Bearer <management API key>", async () => {
    const { session_id } = await authRequired(asAlice());
    const session = await login(gw, ADMIN.username, ADMIN.password);
    const unscoped = await createApiKey(gw, "no-mcp-scope", ["MCP:View"]);
    const refused: Array<[string, Record<string, string>, number]> = [
      ["no credentials", {}, 401],
      ["a virtual key as bearer", bearer(alice.value), 401],
      ["a virtual key in x-gw-vk", { "x-gw-vk": alice.value }, 401],
      ["x-api-key with a management key", { "x-api-key": submitKey }, 401],
      ["a dashboard session token", bearer(session), 401],
      ["the admin's basic credentials", bearer(basicToken(ADMIN.username, ADMIN.password)), 401],
      ["the setup token", { "x-gateway-setup-token": SETUP_TOKEN }, 401],
      ["an unknown API key", bearer("gwk_never-issued-0000000000000000000000000000"), 401],
      ["an API key without MCP:Update", bearer(unscoped), 403],
    ];
    for (const [, headers, status] of refused) await expectGatewayError(await submit(session_id, { headers: { "x-user-token": "alice-token" } }, headers), status);
    expect((await gw.admin(flowPath(session_id))).status).toBe(200);
    expect(upstream.calls).toHaveLength(0);
  });

  test("values the upstream refuses are a 422; the flow stays open for another try", async () => {
    const { session_id } = await authRequired(asAlice());
    await expectGatewayError(await submit(session_id, { headers: { "x-user-token": "wrong-token" } }), 422, { errorType: "caller_mcp_headers_rejected" });
    const flow = (await (await gw.admin(flowPath(session_id))).json()) as { status: string };
    expect(flow.status).toBe("pending");
  });

  test("a missing value for a live key is a 400 naming it", async () => {
    const { session_id } = await authRequired(asAlice());
    await expectGatewayError(await submit(session_id, { headers: { "x-other": "value" } }), 400, { param: "headers.x-user-token" });
  });

  test("a value no HTTP header can carry (a line break) is a 400 naming it, and the upstream is not called", async () => {
    const { session_id } = await authRequired(asAlice());
    const callsBefore = upstream.calls.length;
    await expectGatewayError(await submit(session_id, { headers: { "x-user-token": "alice-token\r\nx-evil: 1" } }), 400, { param: "headers.x-user-token", errorType: /^caller_/ });
    expect(upstream.calls.length).toBe(callsBefore);
  });

  test("verifies, stores the credential encrypted, consumes the flow; the next call uses the values; unknown keys are dropped", async () => {
    const { session_id } = await authRequired(asAlice());
    const response = await submit(session_id, { headers: { "X-User-Token": "alice-token", "x-not-a-declared-key": "leak-me" } });
    expect(response.status).toBe(200);
    const result = (await response.json()) as { status: string; credential_id: string; updated_at: string };
    expect(result.status).toBe("success");
    expect(result.credential_id).toBeString();
    // The credential's own id, not the id of the flow it came through (which is gone).
    expect(result.credential_id).not.toBe(session_id);
    expect(Number.isNaN(Date.parse(result.updated_at))).toBe(false);

    await expectGatewayError(await gw.admin(flowPath(session_id)), 404);
    await expectGatewayError(await submit(session_id, { headers: { "x-user-token": "alice-token" } }), 404);

    expect(await toolContent(await executeTool(gw, "notes-whoami", {}, asAlice()))).toBe("token alice-token");
    const lastRequest = upstream.requestHeaders.at(-1)!;
    expect(lastRequest.get("x-team")).toBe("platform");
    expect(upstream.requestHeaders.some((headers) => headers.has("x-not-a-declared-key"))).toBe(false);

    const database = createClient({ url: gw.databaseUrl });
    try {
      const stored = await database.execute("SELECT * FROM mcp_per_user_credentials");
      expect(stored.rows).toHaveLength(1);
      expect(stored.rows[0]!.id).toBe(result.credential_id);
      expect(JSON.stringify(stored.rows)).not.toContain("alice-token");
      expect((await database.execute("SELECT * FROM mcp_per_user_header_flows WHERE id = ?", [session_id])).rows).toHaveLength(0);
      expect(JSON.stringify((await database.execute("SELECT * FROM actor_snapshots")).rows)).not.toContain("alice-token");
    } finally {
      database.close();
    }
  });

  test("values are per identity: an MCP session id gets its own flow and its own values", async () => {
    const bob = { "x-gw-mcp-session-id": "bob-laptop-session" };
    const { session_id } = await authRequired(bob);
    const flow = (await (await gw.admin(flowPath(session_id))).json()) as Record<string, unknown>;
    expect(flow.flow_mode).toBe("session");
    expect(JSON.stringify(flow)).not.toContain("bob-laptop-session");
    expect((await submit(session_id, { "x-user-token": "bob-token" })).status).toBe(200);
    expect(await toolContent(await executeTool(gw, "notes-whoami", {}, bob))).toBe("token bob-token");
    expect(await toolContent(await executeTool(gw, "notes-whoami", {}, asAlice()))).toBe("token alice-token");
  });

  test("once the upstream refuses the stored values, the caller is asked for new ones", async () => {
    accepted.delete("alice-token");
    try {
      const required = await authRequired(asAlice());
      expect(required.mcp_client_name).toBe("notes");
    } finally {
      accepted.add("alice-token");
    }
  });

  test("a pending flow survives a restart of the gateway", async () => {
    const caller = { "x-gw-mcp-session-id": "restart-session" };
    const { session_id } = await authRequired(caller);
    await gw.stop();
    gw = await gw.restart();
    expect((await submit(session_id, { "x-user-token": "bob-token" })).status).toBe(200);
    expect(await toolContent(await executeTool(gw, "notes-whoami", {}, caller))).toBe("token bob-token");
  });

  test("an expired flow is a 410, on GET and PUT", async () => {
    const { session_id } = await authRequired({ "x-gw-mcp-session-id": "late-session" });
    const upstreamRequests = upstream.requestHeaders.length;
    setSystemTime(new Date(Date.now() + (FLOW_TTL_SECONDS + 1) * 1000));
    await expectGatewayError(await submit(session_id, { "x-user-token": "bob-token" }), 410, { errorType: "caller_mcp_flow_expired" });
    await expectGatewayError(await gw.admin(flowPath(session_id)), 410);
    expect(upstream.requestHeaders.length).toBe(upstreamRequests);
  });
});
