import { randomUUID } from "node:crypto";
import { fetchUnder } from "../../outbound/guarded-fetch";
import { type OutboundReach, policyFor } from "../../outbound/reach";
import { badRequest, GatewayError } from "../../http/errors";
import { connectsPerCaller, type McpClientConfig } from "../clients/config";
import type { CredentialOwner } from "../per-user/credentials";
import { loadMcpClientSdk } from "../sdk";
import { GrantProvider, type GrantKeeper } from "./provider";
import type { ConnectionKey, McpOAuthStore, OAuthConnection, OAuthConnectionState, OAuthGrant } from "./store";

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

/** How long a node may take to refresh a connection's tokens before another may try: past any token endpoint's answer. */
const REFRESH_LEASE_MS = 30_000;
/** How often a node waiting on another's refresh looks whether it is done. */
const REFRESH_WAIT_MS = 25;

/** The caller's error when an oauth client cannot be used until someone consents (again). */
export class OAuthConsentNeeded extends GatewayError {
  constructor(message: string) {
    super({ status: 503, errorType: "provider_mcp_oauth_consent_required", message });
  }
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

const keyText = ({ mcpClientId, owner }: ConnectionKey) => `${mcpClientId}\0${owner?.mode ?? "shared"}\0${owner?.identity ?? ""}`;

/** Who a connection belongs to, for messages and audit summaries. */
const ownerSummary = (owner: CredentialOwner | undefined) => (owner ? { owner_mode: owner.mode, ...(owner.mode === "virtual_key" ? { virtual_key_id: owner.identity } : {}) } : { owner_mode: "shared" });

/**
 * The OAuth 2.1 connections of `oauth` MCP clients (one shared per client, or with
 * `oauth.per_user` one per virtual key or session): their providers for the transports, the
 * consent (connect, then the authorization server's callback), and each connection's state,
 * kept in the store and, for the shared ones, in memory for the client list.
 */
export class McpOAuthConnections {
  private readonly providers = new Map<string, { config: McpClientConfig; provider: GrantProvider }>();
  private readonly summaries = new Map<string, OAuthConnection>();
  /** This process, as the holder of a refresh (see refreshAlone). */
  private readonly refreshHolder = randomUUID();

  constructor(
    private readonly store: McpOAuthStore,
    private readonly options: OAuthConnectionsOptions,
  ) {}

  async load(): Promise<void> {
    const stored = await this.store.allShared();
    this.summaries.clear();
    for (const [id, connection] of stored) this.summaries.set(id, connection);
  }

  /** The shared connection; per-user clients show none (each caller has their own). */
  view(config: McpClientConfig): OAuthConnectionView | null {
    if (config.authType !== "oauth" || connectsPerCaller(config)) return null;
    const connection = this.summaries.get(config.id);
    return {
      state: connection?.state ?? "needs_consent",
      last_error: connection?.lastError ?? null,
      connected_at: connection?.connectedAt?.toISOString() ?? null,
      access_token_expires_at: connection?.accessExpiresAt?.toISOString() ?? null,
      registered_client_id: connection?.grant.client?.client_id ?? config.oauth.clientId ?? null,
    };
  }

  /**
   * The provider a transport authorizes with (one per connection, so refreshes are not
   * repeated); none for a per-user client without an owner.
   */
  providerFor(config: McpClientConfig, owner?: CredentialOwner): GrantProvider | undefined {
    if (config.authType !== "oauth" || connectsPerCaller(config) !== (owner !== undefined)) return undefined;
    const key = { mcpClientId: config.id, owner };
    const known = this.providers.get(keyText(key));
    if (known?.config === config) return known.provider;
    const provider = new GrantProvider(config, "calls", this.keeperFor(config, owner));
    this.providers.set(keyText(key), { config, provider });
    return provider;
  }

  /** Whether the owner has tokens for the client (a per-user call without them starts a consent). */
  async hasTokens(config: McpClientConfig, owner: CredentialOwner): Promise<boolean> {
    return (await this.store.find({ mcpClientId: config.id, owner })).grant.tokens !== undefined;
  }

  /**
   * Starts a consent: discovers the authorization server from the MCP server (its 401's
   * resource_metadata, RFC 9728, then RFC 8414), registers the gateway when no client id is
   * configured (RFC 7591), and answers the authorization URL (PKCE S256) for the browser.
   * `state`: the one to send (a per-user flow's token); a fresh random one otherwise.
   */
  async connect(config: McpClientConfig, redirectUrl: string, owner?: CredentialOwner, state?: string): Promise<string> {
    if (config.authType !== "oauth") throw badRequest(`MCP client '${config.name}' does not use OAuth (auth_type is ${config.authType})`, "auth_type");
    if (connectsPerCaller(config) && !owner) throw badRequest(`MCP client '${config.name}' has oauth.per_user set: each caller connects their own account when a call asks for it`, "oauth.per_user");
    const key = { mcpClientId: config.id, owner };
    const current = await this.store.find(key);
    const provider = new GrantProvider(config, "consent", this.keeperFor(config, owner), { ...current.grant, redirectUrl }, state);
    const sdk = await loadMcpClientSdk();
    try {
      await sdk.auth(provider, { serverUrl: config.connectionString!, fetchFn: this.fetchFor(config) });
    } catch (error) {
      throw new GatewayError({ status: 502, errorType: "provider_mcp_oauth_discovery_failed", message: `MCP client '${config.name}': the authorization server could not be reached or refused the gateway: ${describe(error)}` });
    }
    if (!provider.authorizationUrl || !provider.sentState) throw new GatewayError({ status: 502, errorType: "provider_mcp_oauth_discovery_failed", message: `MCP client '${config.name}': the authorization server gave no authorization URL` });
    await this.save(key, { ...current, grant: provider.current }, provider.sentState);
    return provider.authorizationUrl.href;
  }

  /** The connection a callback's `state` belongs to: 400 when it is unknown or already used. */
  async pending(state: string, configOf: (id: string) => McpClientConfig | undefined): Promise<{ key: ConnectionKey; config: McpClientConfig; connection: OAuthConnection }> {
    const pending = await this.store.findPending(state);
    const config = pending && configOf(pending.key.mcpClientId);
    if (!pending || !config) throw badRequest("this authorization is unknown or already used: start the connection again", "state", "caller_mcp_oauth_state_unknown");
    return { ...pending, config };
  }

  /** Exchanges the code the browser came back with (and the PKCE verifier) for tokens. */
  async exchange(state: string, code: string, configOf: (id: string) => McpClientConfig | undefined): Promise<ConnectionKey> {
    const { config, ...pending } = await this.pending(state, configOf);
    const provider = new GrantProvider(config, "callback", this.keeperFor(config, pending.key.owner), pending.connection.grant);
    const sdk = await loadMcpClientSdk();
    try {
      await sdk.auth(provider, { serverUrl: config.connectionString!, authorizationCode: code, fetchFn: this.fetchFor(config) });
    } catch (error) {
      await this.save(pending.key, { ...pending.connection, lastError: `the authorization code was not accepted: ${describe(error)}` }, null);
      throw new GatewayError({ status: 502, errorType: "provider_mcp_oauth_exchange_failed", message: `MCP client '${config.name}': the authorization server did not exchange the code: ${describe(error)}` });
    }
    return pending.key;
  }

  /** The shared connection's callback: the exchange, then the client connects with its new token. */
  async complete(state: string, code: string, configOf: (id: string) => McpClientConfig | undefined): Promise<void> {
    const key = await this.exchange(state, code, configOf);
    await this.options.connected(key.mcpClientId);
  }

  /** A client deleted: its providers go (its rows go with the client). */
  forget(mcpClientId: string): void {
    for (const [text, { config }] of this.providers) if (config.id === mcpClientId) this.providers.delete(text);
    this.summaries.delete(mcpClientId);
  }

  private fetchFor(config: McpClientConfig) {
    return fetchUnder(policyFor(this.options.outbound, config.privateNetworkAllowed));
  }

  private async save(key: ConnectionKey, connection: Omit<OAuthConnection, "updatedAt">, pendingState?: string | null): Promise<void> {
    await this.store.save(key, connection, pendingState);
    if (!key.owner) this.summaries.set(key.mcpClientId, { ...connection, updatedAt: new Date(this.options.now()) });
  }

  /**
   * Runs `refresh` while no other process refreshes the same connection: nodes sharing it take
   * turns through a claim on its row, which lapses should its holder die.
   */
  private async refreshAlone(key: ConnectionKey, refresh: () => Promise<void>, gone: () => Promise<Error>): Promise<void> {
    // A lapsed claim is taken over, so waiting longer than one lease means the row itself is gone (the client deleted).
    const giveUpAt = performance.now() + REFRESH_LEASE_MS + 10 * REFRESH_WAIT_MS;
    for (;;) {
      const now = this.options.now();
      if (await this.store.claimRefresh(key, this.refreshHolder, new Date(now), new Date(now + REFRESH_LEASE_MS))) break;
      if (performance.now() > giveUpAt) throw await gone();
      await Bun.sleep(REFRESH_WAIT_MS);
    }
    try {
      await refresh();
    } finally {
      await this.store.releaseRefresh(key, this.refreshHolder);
    }
  }

  private keeperFor(config: McpClientConfig, owner: CredentialOwner | undefined): GrantKeeper {
    const { now, audit } = this.options;
    const key = { mcpClientId: config.id, owner };
    const whose = ownerSummary(owner);
    const keeper: GrantKeeper = {
      now,
      load: async () => (await this.store.find(key)).grant,
      tokensIssued: async (grant: OAuthGrant) => {
        const before = await this.store.find(key);
        const expiresIn = grant.tokens?.expires_in;
        const connectedAt = before.state === "connected" ? before.connectedAt : new Date(now());
        await this.save(key, { state: "connected", grant, accessExpiresAt: expiresIn === undefined ? undefined : new Date(now() + expiresIn * 1000), connectedAt }, grant.codeVerifier === undefined ? null : undefined);
        if (before.state !== "connected") audit?.({ action: "MCP:OAuthConnected", mcpClientId: config.id, summary: { mcp_client: config.name, ...whose, scope: grant.tokens?.scope ?? null, refreshed: before.grant.tokens !== undefined } });
      },
      consentLost: async (grant: OAuthGrant) => {
        const before = await this.store.find(key);
        const refused = grant.tokens === undefined;
        const lastError = refused
          ? "the authorization server refused to refresh the access token: connect the client again"
          : "the access token could not be refreshed (the authorization server did not answer as expected); it is tried again on the next call";
        await this.save(key, { ...before, state: "refresh_failed", grant: { ...before.grant, tokens: grant.tokens }, lastError });
        if (before.state !== "refresh_failed") audit?.({ action: "MCP:OAuthRefreshFailed", mcpClientId: config.id, summary: { mcp_client: config.name, ...whose, tokens_revoked: refused } });
        throw new OAuthConsentNeeded(`MCP client '${config.name}': ${lastError}`);
      },
      notConnected: async () => {
        const connection = await this.store.find(key);
        const why = connection.state === "refresh_failed" ? (connection.lastError ?? "its token could not be refreshed") : "nobody has connected it to its authorization server yet";
        return new OAuthConsentNeeded(`MCP client '${config.name}' needs an administrator's consent: ${why} (POST /api/mcp/client/${config.id}/oauth/connect, or Connect on the dashboard's MCP page)`);
      },
      refresh: (provider: GrantProvider) =>
        this.refreshAlone(key, async () => {
          // A server that rotates refresh tokens refuses the one another node has just used: take what that node stored.
          const stored = (await this.store.find(key)).grant;
          if (stored.tokens?.refresh_token !== provider.current.tokens?.refresh_token) {
            if (!stored.tokens) throw await keeper.notConnected();
            return provider.adopt(stored);
          }
          const sdk = await loadMcpClientSdk();
          await sdk.auth(provider, { serverUrl: config.connectionString!, fetchFn: this.fetchFor(config) });
        }, keeper.notConnected),
    };
    return keeper;
  }
}
