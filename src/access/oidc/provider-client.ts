import { createRemoteJWKSet, type JWTPayload, jwtVerify } from "jose";
import { resolveEnvReference } from "../../config/env-reference";
import type { OidcProviderSettings } from "../../config/sections/oidc";

/** The parts of the provider's discovery document the sign-in uses. */
interface Discovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  end_session_endpoint?: string;
  token_endpoint_auth_methods_supported?: string[];
}

/** Why a sign-in was refused, in words the person signing in can act on. */
export class SignInRefused extends Error {
  constructor(
    message: string,
    readonly reason: string,
  ) {
    super(message);
  }
}

const DEFAULT_SCOPES = ["openid", "email", "profile"];
const CLOCK_TOLERANCE_SECONDS = 30;

async function fetchDiscovery(issuer: string): Promise<Discovery> {
  const url = `${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`;
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new SignInRefused(`the identity provider's discovery document could not be read (HTTP ${response.status})`, "discovery_failed");
  const document = (await response.json()) as Partial<Discovery>;
  if (document.issuer !== issuer) throw new SignInRefused("the identity provider's discovery document names another issuer", "issuer_mismatch");
  if (!document.authorization_endpoint || !document.token_endpoint || !document.jwks_uri) throw new SignInRefused("the identity provider's discovery document lacks its endpoints", "discovery_failed");
  return document as Discovery;
}

/**
 * One configured OpenID Connect provider: its endpoints (discovered once), its signing keys
 * (cached by jose and fetched again when a token names a key id not seen yet, which is how a
 * key rotation shows), the token exchange and the ID token's validation.
 */
export class OidcProviderClient {
  private discovery?: Promise<Discovery>;
  private keys?: ReturnType<typeof createRemoteJWKSet>;

  constructor(
    readonly key: string,
    readonly settings: OidcProviderSettings,
    private readonly env: Record<string, string | undefined>,
  ) {}

  get displayName(): string {
    return this.settings.display_name ?? this.key;
  }

  get scopes(): string[] {
    const scopes = this.settings.scopes ?? DEFAULT_SCOPES;
    return scopes.includes("openid") ? scopes : ["openid", ...scopes];
  }

  async endpoints(): Promise<Discovery> {
    this.discovery ??= fetchDiscovery(this.settings.issuer).catch((error) => {
      this.discovery = undefined;
      throw error;
    });
    return this.discovery;
  }

  async authorizationUrl(input: { redirectUri: string; state: string; nonce: string; codeChallenge: string }): Promise<URL> {
    const url = new URL((await this.endpoints()).authorization_endpoint);
    url.search = new URLSearchParams({
      response_type: "code",
      client_id: this.settings.client_id,
      redirect_uri: input.redirectUri,
      scope: this.scopes.join(" "),
      state: input.state,
      nonce: input.nonce,
      code_challenge: input.codeChallenge,
      code_challenge_method: "S256",
    }).toString();
    return url;
  }

  /** Trades the authorization code for tokens and answers the validated ID token's claims. */
  async redeem(input: { code: string; codeVerifier: string; redirectUri: string; nonce: string }): Promise<{ claims: JWTPayload; idToken: string }> {
    const endpoints = await this.endpoints();
    const form = new URLSearchParams({ grant_type: "authorization_code", code: input.code, redirect_uri: input.redirectUri, code_verifier: input.codeVerifier });
    const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", accept: "application/json" };
    const secret = this.settings.client_secret && resolveEnvReference(this.settings.client_secret, this.env);
    const basicAllowed = endpoints.token_endpoint_auth_methods_supported?.includes("client_secret_basic") ?? true;
    if (secret && basicAllowed) headers.authorization = `Basic ${btoa(`${encodeURIComponent(this.settings.client_id)}:${encodeURIComponent(secret)}`)}`;
    else {
      form.set("client_id", this.settings.client_id);
      if (secret) form.set("client_secret", secret);
    }
    const response = await fetch(endpoints.token_endpoint, { method: "POST", headers, body: form, signal: AbortSignal.timeout(10_000) });
    const body = (await response.json().catch(() => ({}))) as { id_token?: unknown; error?: unknown };
    if (!response.ok || typeof body.id_token !== "string") {
      throw new SignInRefused(`the identity provider did not accept the sign-in (${typeof body.error === "string" ? body.error : `HTTP ${response.status}`})`, "token_exchange_failed");
    }
    return { claims: await this.validate(body.id_token, input.nonce), idToken: body.id_token };
  }

  /** Signature (provider's keys), issuer, audience, expiry and the nonce this sign-in sent. */
  async validate(idToken: string, nonce: string): Promise<JWTPayload> {
    const endpoints = await this.endpoints();
    // An ID token arrives only from the token endpoint, never from the browser: an unknown key id
    // is a rotation at the provider, so the key set is fetched again at once.
    this.keys ??= createRemoteJWKSet(new URL(endpoints.jwks_uri), { cooldownDuration: 0 });
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await jwtVerify(idToken, this.keys, { issuer: this.settings.issuer, audience: this.settings.client_id, clockTolerance: CLOCK_TOLERANCE_SECONDS }));
    } catch (error) {
      throw new SignInRefused(`the identity provider's ID token was not accepted: ${error instanceof Error ? error.message : "invalid"}`, "invalid_id_token");
    }
    if (claims.nonce !== nonce) throw new SignInRefused("the ID token was not issued for this sign-in (nonce mismatch)", "nonce_mismatch");
    if (Array.isArray(claims.aud) && claims.aud.length > 1 && claims.azp !== this.settings.client_id) throw new SignInRefused("the ID token was issued to another client (azp)", "invalid_id_token");
    if (typeof claims.sub !== "string" || !claims.sub) throw new SignInRefused("the ID token names no subject", "invalid_id_token");
    return claims;
  }

  /** Where to send the browser to end the provider's session too, when the provider has such an endpoint. */
  async endSessionUrl(postLogoutRedirectUri: string, idTokenHint?: string): Promise<string | undefined> {
    const endpoint = (await this.endpoints().catch(() => undefined))?.end_session_endpoint;
    if (!endpoint) return undefined;
    const url = new URL(endpoint);
    url.searchParams.set("client_id", this.settings.client_id);
    url.searchParams.set("post_logout_redirect_uri", postLogoutRedirectUri);
    if (idTokenHint) url.searchParams.set("id_token_hint", idTokenHint);
    return url.toString();
  }
}

/** The role the first matching rule grants, if any. */
export function roleFromClaims(rules: OidcProviderSettings["roles"], claims: JWTPayload): string | undefined {
  return rules.find((rule) => {
    const held = claims[rule.claim];
    return Array.isArray(held) ? held.includes(rule.value) : held === rule.value;
  })?.role;
}
