import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectGatewayError } from "../support/gateway-error";
import type { TestGateway } from "../support/gateway";
import { startGateway } from "../support/gateway";
import { type MockOAuthMcpServer, startMockOAuthMcpServer } from "../support/mock-oauth-mcp-server";
import { type ClientView, createMcpClient, createVirtualKey, executeTool, FAST_MCP, toolContent } from "./support";

interface AuthRequired {
  kind: string;
  mcp_client_id: string;
  authorize_url: string;
  session_id: string;
}

let upstream: MockOAuthMcpServer;
let gw: TestGateway;
let notes: ClientView;
let alice: { id: string; value: string };
let bob: { id: string; value: string };

beforeAll(async () => {
  upstream = startMockOAuthMcpServer();
  gw = await startGateway({ mcp: FAST_MCP } as never);
  notes = await createMcpClient(gw, { name: "notes", connection_type: "http", connection_string: upstream.url, auth_type: "oauth", oauth: { per_user: true }, tools_to_execute: ["*"] });
  alice = await createVirtualKey(gw, "alice");
  bob = await createVirtualKey(gw, "bob");
});
afterAll(async () => {
  await gw.close();
  await upstream.stop();
});

const as = (key: { value: string }) => ({ "x-gw-vk": key.value });

async function authRequired(key: { value: string }): Promise<AuthRequired> {
  const body = await expectGatewayError(await executeTool(gw, "notes-add", { a: 1, b: 2 }, as(key)), 401, { errorType: "caller_mcp_auth_required" });
  return (body.extra_fields as unknown as { mcp_auth_required: AuthRequired }).mcp_auth_required;
}

/** The caller opens the authorization URL, consents, and the server sends the browser back to the gateway. */
async function consentAt(authorizeUrl: string): Promise<Response> {
  const page = await (await fetch(authorizeUrl)).text();
  const allow = /id="allow" href="([^"]+)"/.exec(page)![1]!.replaceAll("&amp;", "&");
  const granted = await fetch(`${upstream.origin}${allow}`, { redirect: "manual" });
  return fetch(granted.headers.get("location")!, { redirect: "manual" });
}

describe("an oauth client with per_user: each caller connects their own account", () => {
  test("a caller without tokens is sent to the authorization server, consents, and then calls as themselves; another caller is not", async () => {
    const required = await authRequired(alice);
    expect(required).toMatchObject({ kind: "oauth", mcp_client_id: notes.id });
    const authorize = new URL(required.authorize_url);
    expect(authorize.origin + authorize.pathname).toBe(`${upstream.origin}/as/authorize`);
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");

    const pending = (await (await gw.admin("/api/mcp/per-user-headers/flows?state=pending")).json()) as { flows: Array<{ id: string; kind: string; virtual_key_id?: string }> };
    expect(pending.flows).toContainEqual(expect.objectContaining({ id: required.session_id, kind: "oauth", virtual_key_id: alice.id }));

    const back = await consentAt(required.authorize_url);
    expect(back.status).toBe(200);
    expect(await back.text()).toContain("now acts as your account");
    expect(await toolContent(await executeTool(gw, "notes-add", { a: 1, b: 2 }, as(alice)))).toBe("3");

    const afterwards = (await (await gw.admin("/api/mcp/per-user-headers/flows")).json()) as { flows: Array<{ id: string }> };
    expect(afterwards.flows.map((flow) => flow.id)).not.toContain(required.session_id);
    const forBob = await authRequired(bob);
    expect(forBob.session_id).not.toBe(required.session_id);
    expect(upstream.tokenGrants.filter((grant) => grant === "authorization_code")).toHaveLength(1);
  });

  test("a consent link used once cannot complete a second time", async () => {
    const required = await authRequired(bob);
    const back = await consentAt(required.authorize_url);
    expect(back.status).toBe(200);
    const page = await (await fetch(required.authorize_url)).text();
    const allow = /id="allow" href="([^"]+)"/.exec(page)![1]!.replaceAll("&amp;", "&");
    const callback = (await fetch(`${upstream.origin}${allow}`, { redirect: "manual" })).headers.get("location")!;
    await expectGatewayError(await fetch(callback, { redirect: "manual" }), 400, { param: "state" });
  });

  test("when the caller's refresh is refused, the caller is asked to consent again, and the new consent works", async () => {
    expect(await toolContent(await executeTool(gw, "notes-add", { a: 2, b: 2 }, as(alice)))).toBe("4");
    upstream.expireAccessTokens();
    upstream.refuseRefresh(true);
    try {
      const again = await authRequired(alice);
      expect(again.kind).toBe("oauth");
      expect(upstream.tokenGrants.at(-1)).toBe("refresh_token");
      expect((await consentAt(again.authorize_url)).status).toBe(200);
    } finally {
      upstream.refuseRefresh(false);
    }
    expect(await toolContent(await executeTool(gw, "notes-add", { a: 3, b: 3 }, as(alice)))).toBe("6");
  });

  test("the shared connect route refuses a per-user client", async () => {
    await expectGatewayError(await gw.admin(`/api/mcp/client/${notes.id}/oauth/connect`, { method: "POST" }), 400, { param: "oauth.per_user" });
  });
});
