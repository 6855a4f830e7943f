import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { AUTH_CONFIG } from "../access/access-client";
import { eventually } from "../support/eventually";
import { expectGatewayError } from "../support/gateway-error";
import type { TestGateway } from "../support/gateway";
import { closeNodes, startGateway, startNodes } from "../support/gateway";
import { type MockOAuthMcpServer, startMockOAuthMcpServer } from "../support/mock-oauth-mcp-server";
import { type ClientView, clientWhen, createMcpClient, executeTool, FAST_MCP, listClients, toolContent } from "./support";

interface OAuthClientView extends ClientView {
  oauth: { client_id: string | null; client_secret: string | null; scope: string | null; connection: { state: string; last_error: string | null; registered_client_id: string | null; access_token_expires_at: string | null } } | null;
}

const open: Array<{ close(): Promise<void> } | { stop(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await ("close" in item ? item.close() : item.stop());
});

async function setUp(options: { now?: () => number; config?: Record<string, unknown> } = {}) {
  const upstream = startMockOAuthMcpServer();
  open.push(upstream);
  const gw = await startGateway({ mcp: FAST_MCP, ...options.config } as never, options.now ? { runtime: { clock: options.now } } : undefined);
  open.push(gw);
  const client = (await createMcpClient(gw, { name: "hosted", connection_type: "http", connection_string: upstream.url, auth_type: "oauth", tools_to_execute: ["*"] })) as OAuthClientView;
  return { gw, upstream, client };
}

/** `setUp` on two nodes of one database, the client created on the first. */
async function setUpNodes() {
  const upstream = startMockOAuthMcpServer();
  open.push(upstream);
  const nodes = await startNodes({ mcp: FAST_MCP } as never);
  open.push({ close: () => closeNodes(nodes) });
  const client = (await createMcpClient(nodes[0], { name: "hosted", connection_type: "http", connection_string: upstream.url, auth_type: "oauth", tools_to_execute: ["*"] })) as OAuthClientView;
  return { upstream, nodes, client };
}

const clientOf = async (gw: TestGateway, id: string) => (await listClients(gw)).find((entry) => entry.id === id) as OAuthClientView;

/** What an administrator does: asks for the authorization URL, consents on the server's page, and follows the redirect back to the gateway. */
async function consent(gw: TestGateway, upstream: MockOAuthMcpServer, id: string): Promise<Response & { callbackUrl: string }> {
  const started = await gw.admin(`/api/mcp/client/${id}/oauth/connect`, { method: "POST" });
  expect(started.status).toBe(200);
  const { authorization_url } = (await started.json()) as { authorization_url: string };
  const page = await (await fetch(authorization_url)).text();
  const allow = /id="allow" href="([^"]+)"/.exec(page)![1]!.replaceAll("&amp;", "&");
  const granted = await fetch(`${upstream.origin}${allow}`, { redirect: "manual" });
  expect(granted.status).toBe(302);
  const callbackUrl = granted.headers.get("location")!;
  return Object.assign(await fetch(callbackUrl, { redirect: "manual" }), { callbackUrl });
}

describe("MCP servers behind OAuth 2.1", () => {
  test("an administrator connects: the gateway discovers the authorization server, registers itself, runs PKCE, and calls tools with the token", async () => {
    const { gw, upstream, client } = await setUp();
    expect(client.oauth?.connection?.state).toBe("needs_consent");
    const before = await executeTool(gw, "hosted-get_weather", { city: "Oslo" });
    const refused = await before.text();
    expect(refused).toContain("needs an administrator's consent");

    const started = await gw.admin(`/api/mcp/client/${client.id}/oauth/connect`, { method: "POST" });
    const { authorization_url, redirect_uri } = (await started.json()) as { authorization_url: string; redirect_uri: string };
    const authorize = new URL(authorization_url);
    expect(authorize.origin + authorize.pathname).toBe(`${upstream.origin}/as/authorize`);
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorize.searchParams.get("resource")).toBe(upstream.url);
    expect(redirect_uri).toBe(`${gw.url}/api/mcp/oauth/callback`);
    expect(upstream.registrations.map((registration) => registration.redirect_uris)).toEqual([[redirect_uri]]);

    const back = await consent(gw, upstream, client.id);
    expect(back.status).toBe(303);
    expect(back.headers.get("location")).toBe("/ui/mcp?connected=hosted");
    const connected = (await clientWhen(gw, client.id, (entry) => entry.state === "connected")) as OAuthClientView;
    expect(connected.oauth?.connection).toMatchObject({ state: "connected", last_error: null, registered_client_id: upstream.registrations.at(-1)!.client_id });
    expect(connected.tools.map((tool) => tool.name)).toContain("get_weather");

    expect(await toolContent(await executeTool(gw, "hosted-get_weather", { city: "Oslo" }))).toBe("Sunny and 21C in Oslo");
    expect(upstream.tokenGrants).toEqual(["authorization_code"]);
  });

  test("the same consent link cannot be used twice, and a denial is reported with its reason", async () => {
    const { gw, upstream, client } = await setUp();
    const back = await consent(gw, upstream, client.id);
    expect(back.status).toBe(303);
    expect(new URL(back.callbackUrl).searchParams.get("state")).toBeTruthy();
    await expectGatewayError(await fetch(back.callbackUrl, { redirect: "manual" }), 400, { param: "state", errorType: "caller_mcp_oauth_state_unknown" });
    await expectGatewayError(await fetch(`${gw.url}/api/mcp/oauth/callback?error=access_denied&state=x`), 400, { param: "error" });
  });

  test("an access token the server no longer takes is refreshed on its 401 and the call goes through", async () => {
    const { gw, upstream, client } = await setUp();
    await consent(gw, upstream, client.id);
    await clientWhen(gw, client.id, (entry) => entry.state === "connected");
    upstream.expireAccessTokens();
    expect(await toolContent(await executeTool(gw, "hosted-add", { a: 2, b: 3 }))).toBe("5");
    expect(upstream.tokenGrants).toEqual(["authorization_code", "refresh_token"]);
  });

  test("a token about to expire is refreshed before it is sent, so the server never refuses it", async () => {
    let now = Date.now();
    const { gw, upstream, client } = await setUp({ now: () => now });
    await consent(gw, upstream, client.id);
    await clientWhen(gw, client.id, (entry) => entry.state === "connected");
    const refusedBefore = upstream.refusals();
    now += 3600 * 1000;
    expect(await toolContent(await executeTool(gw, "hosted-add", { a: 1, b: 1 }))).toBe("2");
    expect(upstream.tokenGrants).toEqual(["authorization_code", "refresh_token"]);
    expect(upstream.refusals()).toBe(refusedBefore);
    const view = await clientOf(gw, client.id);
    expect(Date.parse(view.oauth!.connection!.access_token_expires_at!)).toBe(now + 3600 * 1000);
  });

  test("a refused refresh shows as refresh_failed and the caller is told to connect again", async () => {
    const { gw, upstream, client } = await setUp();
    await consent(gw, upstream, client.id);
    await clientWhen(gw, client.id, (entry) => entry.state === "connected");
    upstream.expireAccessTokens();
    upstream.refuseRefresh(true);
    const failed = await expectGatewayError(await executeTool(gw, "hosted-add", { a: 1, b: 2 }), 503, { errorType: "provider_mcp_oauth_consent_required" });
    expect(failed.error.message).toContain("refused to refresh the access token: connect the client again");
    const view = await eventually(() => clientOf(gw, client.id), (entry) => entry.oauth?.connection?.state === "refresh_failed");
    expect(view.oauth!.connection).toMatchObject({ state: "refresh_failed", last_error: expect.stringContaining("connect the client again") });

    upstream.refuseRefresh(false);
    await consent(gw, upstream, client.id);
    await clientWhen(gw, client.id, (entry) => entry.state === "connected" && (entry as OAuthClientView).oauth?.connection?.state === "connected");
    expect(await toolContent(await executeTool(gw, "hosted-add", { a: 1, b: 2 }))).toBe("3");
  });

  test("tokens are stored encrypted, never shown, and survive a restart", async () => {
    const { gw, upstream, client } = await setUp();
    const logged: string[] = [];
    const spied = (["log", "info", "warn", "error"] as const).map((level) => {
      const original = console[level];
      console[level] = (...args: unknown[]) => void logged.push(args.map(String).join(" "));
      return () => void (console[level] = original);
    });
    try {
      await consent(gw, upstream, client.id);
      await clientWhen(gw, client.id, (entry) => entry.state === "connected");
      upstream.expireAccessTokens();
      await toolContent(await executeTool(gw, "hosted-add", { a: 1, b: 1 }));
      const shown = [await (await gw.admin("/api/mcp/clients")).text(), await (await gw.admin("/api/mcp-logs")).text(), logged.join("\n")].join("\n");
      const stored = gw.databaseFiles().map((file) => readFileSync(file).toString("latin1")).join("");
      expect(upstream.issuedSecrets.length).toBe(4);
      for (const secret of upstream.issuedSecrets) {
        expect(shown).not.toContain(secret);
        expect(stored).not.toContain(secret);
      }
    } finally {
      for (const restore of spied) restore();
    }

    await gw.stop();
    open.splice(open.indexOf(gw), 1);
    const restarted = await gw.restart();
    open.push(restarted);
    await clientWhen(restarted, client.id, (entry) => entry.state === "connected");
    expect(await toolContent(await executeTool(restarted, "hosted-add", { a: 4, b: 4 }))).toBe("8");
    expect(upstream.tokenGrants).toEqual(["authorization_code", "refresh_token"]);
  });

  test("a connection made and a refresh that failed are entered in the audit log, without a token", async () => {
    const { gw, upstream, client } = await setUp({ config: { edition: "enterprise", auth: AUTH_CONFIG } });
    await consent(gw, upstream, client.id);
    await clientWhen(gw, client.id, (entry) => entry.state === "connected");
    upstream.expireAccessTokens();
    upstream.refuseRefresh(true);
    await expectGatewayError(await executeTool(gw, "hosted-add", { a: 1, b: 2 }), 503, { errorType: "provider_mcp_oauth_consent_required" });
    const read = async () => (await (await gw.admin(`/api/governance/audit-logs?search=${client.id}`)).json()) as { audit_logs: Array<{ action: string; initiator: { type: string }; summary: unknown }> };
    const audit = await eventually(read, (page) => page.audit_logs.some((entry) => entry.action === "MCP:OAuthRefreshFailed"));
    const actions = audit.audit_logs.map((entry) => entry.action);
    expect(actions).toContain("MCP:OAuthConnected");
    expect(actions).toContain("MCP:OAuthRefreshFailed");
    expect(audit.audit_logs.find((entry) => entry.action === "MCP:OAuthRefreshFailed")).toMatchObject({ initiator: { type: "system" }, summary: { mcp_client: "hosted", tokens_revoked: true } });
    for (const secret of upstream.issuedSecrets) expect(JSON.stringify(audit)).not.toContain(secret);
  });

  test("OAuth is refused for a stdio client, and a configured client secret is redacted", async () => {
    const upstream = startMockOAuthMcpServer();
    open.push(upstream);
    const gw = await startGateway({ mcp: FAST_MCP } as never);
    open.push(gw);
    await expectGatewayError(await gw.admin("/api/mcp/client", { method: "POST", json: { name: "local", connection_type: "stdio", stdio_config: { command: process.execPath }, auth_type: "oauth" } }), 400, { param: "auth_type" });
    const secret = "preregistered-client-secret-0001";
    const created = (await createMcpClient(gw, { name: "pre", connection_type: "http", connection_string: upstream.url, auth_type: "oauth", oauth: { client_id: "pre-client", client_secret: secret } })) as OAuthClientView;
    expect(created.oauth).toMatchObject({ client_id: "pre-client", scope: null });
    expect(JSON.stringify(created)).not.toContain(secret);
    expect(created.oauth?.client_secret).toContain(secret.slice(-4));
  });

  test("a consent given on one node shows on the other, whose calls use the same token", async () => {
    const { upstream, nodes, client } = await setUpNodes();
    const [first, second] = nodes;
    expect((await clientWhen(second, client.id, (entry) => entry.id === client.id)) as OAuthClientView).toMatchObject({ oauth: { connection: { state: "needs_consent" } } });

    expect((await consent(first, upstream, client.id)).status).toBe(303);
    const seen = await eventually(() => clientOf(second, client.id), (entry) => entry.oauth?.connection?.state === "connected");
    expect(seen.oauth?.connection?.state).toBe("connected");
    expect(await toolContent(await executeTool(second, "hosted-get_weather", { city: "Oslo" }))).toBe("Sunny and 21C in Oslo");
    expect(upstream.tokenGrants).toEqual(["authorization_code"]);
  });

  test("two nodes finding the token expired at once refresh it once, and both go on with it", async () => {
    const { upstream, nodes, client } = await setUpNodes();
    expect((await consent(nodes[0], upstream, client.id)).status).toBe(303);
    for (const node of nodes) await clientWhen(node, client.id, (entry) => entry.state === "connected");

    // The server rotates refresh tokens: were both nodes to refresh, it would refuse the second.
    upstream.holdRefreshes(2, 500);
    upstream.expireAccessTokens();
    const answers = await Promise.all(nodes.map(async (node) => toolContent(await executeTool(node, "hosted-add", { a: 2, b: 2 }))));
    expect(answers).toEqual(["4", "4"]);
    expect(upstream.tokenGrants).toEqual(["authorization_code", "refresh_token"]);
    for (const node of nodes) expect((await clientOf(node, client.id)).oauth?.connection?.state).toBe("connected");
  });
});
