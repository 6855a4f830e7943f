import { randomBytes } from "node:crypto";
import type { OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpClientConfig } from "../clients/config";
import type { OAuthGrant } from "./store";

/** What a provider needs of the connection service, which keeps the store and the connection's state. */
export interface GrantKeeper {
  load(): Promise<OAuthGrant>;
  /** New tokens from a refresh or a code exchange. */
  tokensIssued(grant: OAuthGrant): Promise<void>;
  /** The authorization server wants a person's consent again (a refresh failed or was refused): records it and throws what the caller is told. */
  consentLost(grant: OAuthGrant): Promise<never>;
  /** The error for calls while there is no token at all. */
  notConnected(): Promise<Error>;
  /** Runs the SDK's `auth()` for this provider against the client's server (a refresh, as tokens are stored). */
  refresh(provider: GrantProvider): Promise<void>;
  now(): number;
}

/** An access token is refreshed this long before the authorization server said it expires. */
export const REFRESH_EARLY_MS = 30_000;

/** Placeholder for a provider that never sends a browser anywhere; undefined would make the SDK take it for a client-credentials client. */
const NO_REDIRECT = "http://localhost/api/mcp/oauth/callback";

const bearerTokenOf = (headers: RequestInit["headers"]) => /^Bearer (.+)$/i.exec(new Headers(headers).get("authorization") ?? "")?.[1];

/**
 * The MCP SDK's view of one `oauth` client's grant, for `auth()` and the HTTP transports: the
 * SDK discovers the authorization server, registers, runs PKCE and refreshes; this keeps what it
 * gets. Three uses: `calls` (the transports' requests: the access token, refreshed when due),
 * `consent` (starts an authorization: the URL for the browser is kept, not followed) and
 * `callback` (exchanges the code the browser came back with).
 */
export class GrantProvider implements OAuthClientProvider {
  /** The consent URL `auth()` produced (mode `consent`). */
  authorizationUrl?: URL;
  /** The `state` sent with it. */
  sentState?: string;
  private grant: OAuthGrant;
  private refreshing?: Promise<void>;
  /** Inside the SDK's `auth()`: tokens are read as stored, not refreshed again. */
  private authorizing = false;

  constructor(
    private readonly config: McpClientConfig,
    private readonly mode: "calls" | "consent" | "callback",
    private readonly keeper: GrantKeeper,
    grant: OAuthGrant = {},
    /** The `state` to send, when the caller chose it (a per-user flow's token). */
    private readonly presetState?: string,
  ) {
    this.grant = { ...grant };
  }

  get current(): OAuthGrant {
    return this.grant;
  }

  get redirectUrl(): string {
    return this.grant.redirectUrl ?? NO_REDIRECT;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: `AI gateway (${this.config.name})`,
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      ...(this.config.oauth.scope ? { scope: this.config.oauth.scope } : {}),
    };
  }

  state(): string {
    this.sentState = this.presetState ?? randomBytes(32).toString("base64url");
    return this.sentState;
  }

  /** The configured client when there is one (with the authorization server the SDK stamped on it), else the registration. */
  clientInformation(): OAuthClientInformationMixed | undefined {
    const { clientId, clientSecret } = this.config.oauth;
    if (!clientId) return this.grant.client;
    const stamped = this.grant.client?.client_id === clientId ? this.grant.client : undefined;
    return { ...stamped, client_id: clientId, ...(clientSecret ? { client_secret: clientSecret } : {}) };
  }

  saveClientInformation(client: OAuthClientInformationMixed): void {
    if (!this.config.oauth.clientId) return void (this.grant.client = client);
    // A configured secret stays in the client's configuration only.
    const { client_secret: _configured, ...stamp } = client;
    this.grant.client = stamp;
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    if (this.mode !== "calls") return undefined;
    if (this.authorizing) return this.grant.tokens;
    this.grant = await this.keeper.load();
    if (!this.grant.tokens) throw await this.keeper.notConnected();
    if (this.due()) await this.refresh();
    return this.grant.tokens;
  }

  /**
   * `fetch` for the transports, answering the MCP server's refusal of the access token (401)
   * itself: the tokens are refreshed as when they are due (one node at a time) and the request
   * is sent once more. Left to the SDK, each node would refresh on its own, and a server that
   * rotates refresh tokens refuses all but the first.
   */
  refreshingOnRefusal(fetch: FetchLike): FetchLike {
    return async (url, init) => {
      const response = await fetch(url, init);
      const refused = response.status === 401 && this.mode === "calls" ? bearerTokenOf(init?.headers) : undefined;
      if (!refused) return response;
      if (this.grant.tokens?.access_token === refused) await this.refresh();
      const token = this.grant.tokens?.access_token;
      if (!token || token === refused) return response;
      await response.body?.cancel();
      const headers = new Headers(init?.headers);
      headers.set("authorization", `Bearer ${token}`);
      return fetch(url, { ...init, headers });
    };
  }

  /** Tokens another node refreshed and stored while this one waited its turn. */
  adopt(grant: OAuthGrant): void {
    this.grant = grant;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    // The verifier of a consent under way stays until its own callback uses it.
    this.grant = { ...this.grant, tokens, issuedAt: this.keeper.now(), codeVerifier: this.mode === "callback" ? undefined : this.grant.codeVerifier };
    await this.keeper.tokensIssued(this.grant);
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    if (this.mode !== "consent") return this.keeper.consentLost(this.grant);
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string): void {
    this.grant.codeVerifier = verifier;
  }

  codeVerifier(): string {
    if (!this.grant.codeVerifier) throw new Error("no authorization is under way for this MCP client: connect it again");
    return this.grant.codeVerifier;
  }

  /** The authorization server refused what it was shown; refused tokens during calls mean a person must consent again. */
  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    if (scope === "all" || scope === "tokens") this.grant.tokens = undefined;
    if (scope === "all" || scope === "client") this.grant.client = undefined;
    if (scope === "all" || scope === "discovery") this.grant.discovery = undefined;
    if (scope === "all" || scope === "verifier") this.grant.codeVerifier = undefined;
    if (this.mode === "calls" && (scope === "all" || scope === "tokens")) await this.keeper.consentLost(this.grant);
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.grant.discovery = state;
  }

  /** A consent discovers afresh: the server may have moved to another authorization server. */
  discoveryState(): OAuthDiscoveryState | undefined {
    return this.mode === "consent" ? undefined : this.grant.discovery;
  }

  private due(): boolean {
    const { tokens, issuedAt } = this.grant;
    if (!tokens?.refresh_token || tokens.expires_in === undefined || issuedAt === undefined) return false;
    return this.keeper.now() >= issuedAt + tokens.expires_in * 1000 - REFRESH_EARLY_MS;
  }

  /** One refresh at a time per client, whichever calls find the token due. */
  private async refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      this.authorizing = true;
      try {
        await this.keeper.refresh(this);
      } finally {
        this.authorizing = false;
        this.refreshing = undefined;
      }
    })();
    await this.refreshing;
  }
}
