import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { fetchUnder } from "../../outbound/guarded-fetch";
import { type OutboundReach, policyFor } from "../../outbound/reach";
import { badRequest, GatewayError } from "../../http/errors";
import type { McpClientConfig } from "../clients/config";
import { loadMcpClientSdk } from "../sdk";
import { GrantProvider, type GrantKeeper } from "./provider";
import type { McpOAuthStore, OAuthConnection, OAuthConnectionState, OAuthGrant } from "./store";

/** An OAuth connection event for the audit log (the gateway's own doing, or the end of a consent). */
export interface OAuthAuditEvent {
  action: "MCP:OAuthConnected" | "MCP:OAuthRefreshFailed";
  mcpClientId: string;
  summary: Record<string, unknown>;
}

export interface OAuthConnectionsOptions {
  outbound: OutboundReach;
  now: () => number;
  audit?: (event: OAuthAuditEvent) => void;
  /** A consent completed: the client's connection starts over with its new token. */
  connected: (mcpClientId: string) => Promise<void>;
}

/** What the MCP clients API shows of a connection: its state, never a token. */
export interface OAuthConnectionView {
  state: OAuthConnectionState;
  last_error: string | null;
  connected_at: string | null;
  access_token_expires_at: string | null;
  /** The client id the gateway registered (RFC 7591) or was configured with. */
  registered_client_id: string | null;
}

/** The caller's error when an oauth client cannot be used until someone consents (again). */
export class OAuthConsentNeeded extends GatewayError {
  constructor(message: string) {
    super({ status: 503, errorType: "provider_mcp_oauth_consent_required", message });
  }
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The OAuth 2.1 connections of `oauth` MCP clients: their providers for the transports, the
 * consent (connect, then the authorization server's callback), and each connection's state,
 * kept in the store and in memory for the client list.
 */
export class McpOAuthConnections {
  private readonly providers = new Map<string, { config: McpClientConfig; provider: GrantProvider }>();
  private readonly summaries = new Map<string, OAuthConnection>();

  constructor(
    private readonly store: McpOAuthStore,
    private readonly options: OAuthConnectionsOptions,
  ) {}

  async load(): Promise<void> {
    for (const [id, connection] of await this.store.all()) this.summaries.set(id, connection);
  }

  view(config: McpClientConfig): OAuthConnectionView | null {
    if (config.authType !== "oauth") return null;
    const connection = this.summaries.get(config.id);
    return {
      state: connection?.state ?? "needs_consent",
      last_error: connection?.lastError ?? null,
      connected_at: connection?.connectedAt?.toISOString() ?? null,
      access_token_expires_at: connection?.accessExpiresAt?.toISOString() ?? null,
      registered_client_id: connection?.grant.client?.client_id ?? config.oauth.clientId ?? null,
    };
  }

  /** The provider the client's transports authorize with (one per client, so refreshes are not repeated). */
  providerFor(config: McpClientConfig): OAuthClientProvider | undefined {
    if (config.authType !== "oauth") return undefined;
    const known = this.providers.get(config.id);
    if (known?.config === config) return known.provider;
    const provider = new GrantProvider(config, "calls", this.keeperFor(config));
    this.providers.set(config.id, { config, provider });
    return provider;
  }

  /**
   * Starts a consent: discovers the authorization server from the MCP server (its 401's
   * resource_metadata, RFC 9728, then RFC 8414), registers the gateway when no client id is
   * configured (RFC 7591), and answers the authorization URL (PKCE S256) for the browser.
   */
  async connect(config: McpClientConfig, redirectUrl: string): Promise<string> {
    if (config.authType !== "oauth") throw badRequest(`MCP client '${config.name}' does not use OAuth (auth_type is ${config.authType})`, "auth_type");
    const current = await this.store.find(config.id);
    const provider = new GrantProvider(config, "consent", this.keeperFor(config), { ...current.grant, redirectUrl });
    const sdk = await loadMcpClientSdk();
    try {
      await sdk.auth(provider, { serverUrl: config.connectionString!, fetchFn: this.fetchFor(config) });
    } catch (error) {
      throw new GatewayError({ status: 502, errorType: "provider_mcp_oauth_discovery_failed", message: `MCP client '${config.name}': the authorization server could not be reached or refused the gateway: ${describe(error)}` });
    }
    if (!provider.authorizationUrl || !provider.sentState) throw new GatewayError({ status: 502, errorType: "provider_mcp_oauth_discovery_failed", message: `MCP client '${config.name}': the authorization server gave no authorization URL` });
    await this.save(config.id, { ...current, grant: provider.current }, provider.sentState);
    return provider.authorizationUrl.href;
  }

  /** The authorization server sent the browser back: exchanges the code (with the PKCE verifier) for tokens. */
  async complete(state: string, code: string, configOf: (id: string) => McpClientConfig | undefined): Promise<McpClientConfig> {
    const pending = await this.store.findPending(state);
    const config = pending && configOf(pending.mcpClientId);
    if (!pending || !config) throw badRequest("this authorization is unknown or already used: start the connection again", "state", "caller_mcp_oauth_state_unknown");
    const provider = new GrantProvider(config, "callback", this.keeperFor(config), pending.connection.grant);
    const sdk = await loadMcpClientSdk();
    try {
      await sdk.auth(provider, { serverUrl: config.connectionString!, authorizationCode: code, fetchFn: this.fetchFor(config) });
    } catch (error) {
      await this.save(config.id, { ...pending.connection, lastError: `the authorization code was not accepted: ${describe(error)}` }, null);
      throw new GatewayError({ status: 502, errorType: "provider_mcp_oauth_exchange_failed", message: `MCP client '${config.name}': the authorization server did not exchange the code: ${describe(error)}` });
    }
    await this.options.connected(config.id);
    return config;
  }

  /** A client deleted or no longer using OAuth: its provider goes (its row goes with the client). */
  forget(mcpClientId: string): void {
    this.providers.delete(mcpClientId);
    this.summaries.delete(mcpClientId);
  }

  private fetchFor(config: McpClientConfig) {
    return fetchUnder(policyFor(this.options.outbound, config.privateNetworkAllowed));
  }

  private async save(mcpClientId: string, connection: Omit<OAuthConnection, "updatedAt">, pendingState?: string | null): Promise<void> {
    await this.store.save(mcpClientId, connection, pendingState);
    this.summaries.set(mcpClientId, { ...connection, updatedAt: new Date(this.options.now()) });
  }

  private keeperFor(config: McpClientConfig): GrantKeeper {
    const { now, audit } = this.options;
    const id = config.id;
    return {
      now,
      load: async () => (await this.store.find(id)).grant,
      tokensIssued: async (grant: OAuthGrant) => {
        const before = await this.store.find(id);
        const expiresIn = grant.tokens?.expires_in;
        const connectedAt = before.state === "connected" ? before.connectedAt : new Date(now());
        await this.save(id, { state: "connected", grant, accessExpiresAt: expiresIn === undefined ? undefined : new Date(now() + expiresIn * 1000), connectedAt }, grant.codeVerifier === undefined ? null : undefined);
        if (before.state !== "connected") audit?.({ action: "MCP:OAuthConnected", mcpClientId: id, summary: { mcp_client: config.name, scope: grant.tokens?.scope ?? null, refreshed: before.grant.tokens !== undefined } });
      },
      consentLost: async (grant: OAuthGrant) => {
        const before = await this.store.find(id);
        const refused = grant.tokens === undefined;
        const lastError = refused
          ? "the authorization server refused to refresh the access token: connect the client again"
          : "the access token could not be refreshed (the authorization server did not answer as expected); it is tried again on the next call";
        await this.save(id, { ...before, state: "refresh_failed", grant: { ...before.grant, tokens: grant.tokens }, lastError });
        if (before.state !== "refresh_failed") audit?.({ action: "MCP:OAuthRefreshFailed", mcpClientId: id, summary: { mcp_client: config.name, tokens_revoked: refused } });
        throw new OAuthConsentNeeded(`MCP client '${config.name}': ${lastError}`);
      },
      notConnected: async () => {
        const connection = await this.store.find(id);
        const why = connection.state === "refresh_failed" ? (connection.lastError ?? "its token could not be refreshed") : "nobody has connected it to its authorization server yet";
        return new OAuthConsentNeeded(`MCP client '${config.name}' needs an administrator's consent: ${why} (POST /api/mcp/client/${id}/oauth/connect, or Connect on the dashboard's MCP page)`);
      },
      refresh: async (provider: GrantProvider) => {
        const sdk = await loadMcpClientSdk();
        await sdk.auth(provider, { serverUrl: config.connectionString!, fetchFn: this.fetchFor(config) });
      },
    };
  }
}
