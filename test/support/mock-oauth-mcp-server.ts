/**
 * An MCP server behind OAuth 2.1, as hosted MCP servers are: its MCP endpoint answers 401 with a
 * `WWW-Authenticate` naming its protected-resource metadata (RFC 9728), which names an
 * authorization server under `/as` with RFC 8414 metadata, dynamic client registration
 * (RFC 7591), an authorization endpoint that shows a consent page and requires PKCE S256, and a
 * token endpoint for codes and refresh tokens (rotated). The MCP side is the SDK's own server.
 */
import { createHash, randomBytes } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { serveTools, STANDARD_TOOLS } from "./mcp-tools";

interface Registration {
  client_id: string;
  redirect_uris: string[];
  client_name?: string;
}

interface IssuedToken {
  clientId: string;
  scope: string;
  expiresAt: number;
}

export interface MockOAuthMcpServer {
  /** The MCP endpoint (`.../mcp`). */
  readonly url: string;
  readonly origin: string;
  /** Every dynamic registration received. */
  readonly registrations: Registration[];
  /** The grant type of every token request. */
  readonly tokenGrants: string[];
  /** The access token of every MCP request that carried a valid one. */
  readonly acceptedTokens: string[];
  /** How many MCP requests were turned away with 401. */
  readonly refusals: () => number;
  /** Every access and refresh token issued, to look for in what the gateway shows. */
  readonly issuedSecrets: string[];
  /** The access tokens issued so far stop working, as when they expire on the server's clock. */
  expireAccessTokens(): void;
  /** The token endpoint refuses refresh tokens from now on (invalid_grant), as after a revocation. */
  refuseRefresh(refuse: boolean): void;
  /**
   * The next refresh requests are held until `count` have arrived (or `windowMs` passed since the
   * first), then answered in the order they came: two nodes refreshing at once race for certain.
   */
  holdRefreshes(count: number, windowMs: number): void;
  stop(): Promise<void>;
}

const s256 = (verifier: string) => createHash("sha256").update(verifier).digest("base64url");
const token = (prefix: string) => `${prefix}_${randomBytes(24).toString("base64url")}`;
const oauthError = (error: string, description: string, status = 400) => Response.json({ error, error_description: description }, { status });

export function startMockOAuthMcpServer(options: { accessTokenLifetimeSeconds?: number } = {}): MockOAuthMcpServer {
  const lifetime = options.accessTokenLifetimeSeconds ?? 3600;
  const registrations: Registration[] = [];
  const tokenGrants: string[] = [];
  const acceptedTokens: string[] = [];
  const issuedSecrets: string[] = [];
  const codes = new Map<string, { clientId: string; redirectUri: string; challenge: string; scope: string }>();
  const accessTokens = new Map<string, IssuedToken>();
  const refreshTokens = new Map<string, { clientId: string; scope: string }>();
  let refusals = 0;
  let refusingRefresh = false;
  let heldRefreshes: { count: number; windowMs: number; waiting: Array<() => void> } | undefined;
  const refreshTurn = () =>
    new Promise<void>((resolve) => {
      const gate = heldRefreshes;
      if (!gate) return resolve();
      const releaseAll = () => {
        if (heldRefreshes === gate) heldRefreshes = undefined;
        for (const release of gate.waiting.splice(0)) release();
      };
      gate.waiting.push(resolve);
      if (gate.waiting.length === 1) setTimeout(releaseAll, gate.windowMs);
      if (gate.waiting.length >= gate.count) releaseAll();
    });
  let origin = "";
  const issuer = () => `${origin}/as`;
  const resourceMetadataUrl = () => `${origin}/.well-known/oauth-protected-resource/mcp`;

  function issue(clientId: string, scope: string) {
    const access = token("at");
    const refresh = token("rt");
    accessTokens.set(access, { clientId, scope, expiresAt: Date.now() + lifetime * 1000 });
    refreshTokens.set(refresh, { clientId, scope });
    issuedSecrets.push(access, refresh);
    return Response.json({ access_token: access, token_type: "Bearer", expires_in: lifetime, refresh_token: refresh, scope }, { headers: { "cache-control": "no-store" } });
  }

  function consentPage(url: URL): Response {
    const approve = new URL(url);
    approve.searchParams.set("approve", "yes");
    const client = registrations.find((entry) => entry.client_id === url.searchParams.get("client_id"));
    const html = `<!doctype html><title>Consent</title><h1>${client?.client_name ?? "An application"} asks for access to your tools</h1><a id="allow" href="${approve.pathname}${approve.search.replaceAll("&", "&amp;")}">Allow</a>`;
    return new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } });
  }

  function authorize(url: URL): Response {
    const query = url.searchParams;
    const client = registrations.find((entry) => entry.client_id === query.get("client_id"));
    const redirectUri = query.get("redirect_uri") ?? "";
    if (!client || !client.redirect_uris.includes(redirectUri)) return oauthError("invalid_request", "unknown client or redirect_uri");
    if (query.get("response_type") !== "code") return oauthError("unsupported_response_type", "only code");
    if (query.get("code_challenge_method") !== "S256" || !query.get("code_challenge")) return oauthError("invalid_request", "PKCE with S256 is required");
    if (query.get("resource") !== `${origin}/mcp`) return oauthError("invalid_target", "the resource must be this MCP server");
    if (query.get("approve") !== "yes") return consentPage(url);
    const code = token("code");
    codes.set(code, { clientId: client.client_id, redirectUri, challenge: query.get("code_challenge")!, scope: query.get("scope") ?? "" });
    const back = new URL(redirectUri);
    back.searchParams.set("code", code);
    back.searchParams.set("state", query.get("state") ?? "");
    return new Response(null, { status: 302, headers: { location: back.href } });
  }

  async function tokenEndpoint(request: Request): Promise<Response> {
    const form = new URLSearchParams(await request.text());
    const grant = form.get("grant_type") ?? "";
    tokenGrants.push(grant);
    if (grant === "authorization_code") {
      const code = codes.get(form.get("code") ?? "");
      codes.delete(form.get("code") ?? "");
      if (!code || code.clientId !== form.get("client_id") || code.redirectUri !== form.get("redirect_uri")) return oauthError("invalid_grant", "unknown code");
      if (s256(form.get("code_verifier") ?? "") !== code.challenge) return oauthError("invalid_grant", "the PKCE verifier does not match");
      return issue(code.clientId, code.scope);
    }
    if (grant === "refresh_token") {
      await refreshTurn();
      const refresh = refreshTokens.get(form.get("refresh_token") ?? "");
      if (refusingRefresh || !refresh || refresh.clientId !== form.get("client_id")) return oauthError("invalid_grant", "the refresh token is not valid");
      refreshTokens.delete(form.get("refresh_token")!);
      return issue(refresh.clientId, refresh.scope);
    }
    return oauthError("unsupported_grant_type", grant);
  }

  async function register(request: Request): Promise<Response> {
    const metadata = (await request.json()) as Registration & Record<string, unknown>;
    if (!Array.isArray(metadata.redirect_uris) || metadata.redirect_uris.length === 0) return oauthError("invalid_redirect_uri", "redirect_uris is required");
    const registration = { ...metadata, client_id: `client_${registrations.length + 1}`, token_endpoint_auth_method: "none" };
    registrations.push(registration);
    return Response.json({ ...registration, client_id_issued_at: Math.floor(Date.now() / 1000) }, { status: 201 });
  }

  async function mcp(request: Request): Promise<Response> {
    const bearer = /^Bearer (\S+)$/.exec(request.headers.get("authorization") ?? "")?.[1];
    const issued = bearer ? accessTokens.get(bearer) : undefined;
    if (!bearer || !issued || issued.expiresAt <= Date.now()) {
      refusals++;
      return Response.json({ error: "invalid_token" }, { status: 401, headers: { "www-authenticate": `Bearer error="invalid_token", resource_metadata="${resourceMetadataUrl()}"` } });
    }
    acceptedTokens.push(bearer);
    if (request.method !== "POST") return new Response(null, { status: 405, headers: { allow: "POST" } });
    const server = new Server({ name: "oauth-protected", version: "1.0.0" }, { capabilities: { tools: {} } });
    serveTools(server, STANDARD_TOOLS);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request);
    } finally {
      await server.close();
    }
  }

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      switch (url.pathname) {
        case "/mcp":
          return mcp(request);
        case "/.well-known/oauth-protected-resource/mcp":
          return Response.json({ resource: `${origin}/mcp`, authorization_servers: [issuer()], scopes_supported: ["tools:read", "tools:call"], bearer_methods_supported: ["header"] });
        case "/.well-known/oauth-authorization-server/as":
          return Response.json({
            issuer: issuer(),
            authorization_endpoint: `${issuer()}/authorize`,
            token_endpoint: `${issuer()}/token`,
            registration_endpoint: `${issuer()}/register`,
            response_types_supported: ["code"],
            grant_types_supported: ["authorization_code", "refresh_token"],
            code_challenge_methods_supported: ["S256"],
            token_endpoint_auth_methods_supported: ["none"],
          });
        case "/as/authorize":
          return authorize(url);
        case "/as/token":
          return request.method === "POST" ? tokenEndpoint(request) : new Response(null, { status: 405 });
        case "/as/register":
          return request.method === "POST" ? register(request) : new Response(null, { status: 405 });
        default:
          return new Response("not found", { status: 404 });
      }
    },
  });
  origin = `http://127.0.0.1:${server.port}`;

  return {
    url: `${origin}/mcp`,
    origin,
    registrations,
    tokenGrants,
    acceptedTokens,
    refusals: () => refusals,
    issuedSecrets,
    expireAccessTokens() {
      for (const issued of accessTokens.values()) issued.expiresAt = 0;
    },
    refuseRefresh(refuse) {
      refusingRefresh = refuse;
    },
    holdRefreshes(count, windowMs) {
      heldRefreshes = { count, windowMs, waiting: [] };
    },
    async stop() {
      await server.stop(true);
    },
  };
}
