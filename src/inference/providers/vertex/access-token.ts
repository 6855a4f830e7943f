/**
 * Google service-account credentials exchanged for an OAuth access token: a JWT signed with the
 * account's private key, sent to its token_uri (RFC 7523 jwt-bearer grant). Tokens are cached
 * per account until shortly before they expire, and concurrent requests share one exchange.
 */
import { sha256Hex } from "../../../crypto/sha256-hex";
import { type Static, Type as t } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { GatewayError } from "../../../http/errors";
import { upstreamUnreachable } from "../../../upstream/errors";
import { type MintedToken, singleFlightTokens } from "../single-flight-tokens";
import { guardedFetch } from "../../../outbound/guarded-fetch";
import type { OutboundPolicy } from "../../../outbound/host-check";

const ServiceAccount = t.Object(
  { client_email: t.String({ minLength: 1 }), private_key: t.String({ minLength: 1 }), private_key_id: t.Optional(t.String()), token_uri: t.Optional(t.String()), project_id: t.Optional(t.String()) },
  { additionalProperties: true },
);
export type ServiceAccount = Static<typeof ServiceAccount>;

const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform";
const DEFAULT_TOKEN_URI = "https://oauth2.googleapis.com/token";
/** A token this close to expiry is replaced, so it cannot expire during the call. */
const REFRESH_MARGIN_MS = 5 * 60_000;
const TOKEN_REQUEST_TIMEOUT_MS = 30_000;

const misconfigured = (message: string) => new GatewayError({ status: 500, errorType: "gateway_provider_misconfigured", message });

/** Parses `auth_credentials`; a GatewayError when they are not a service account's JSON key. */
export function parseServiceAccount(credentials: string): ServiceAccount | GatewayError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(credentials);
  } catch {
    return misconfigured("vertex_key_config.auth_credentials is not JSON");
  }
  if (!Value.Check(ServiceAccount, parsed)) return misconfigured("vertex_key_config.auth_credentials is not a service-account key (client_email and private_key are required)");
  return parsed;
}

async function signedAssertion(account: ServiceAccount, tokenUri: string): Promise<string> {
  // Loaded with the first token a gateway mints: most never do.
  const { importPKCS8, SignJWT } = await import("jose");
  const key = await importPKCS8(account.private_key, "RS256");
  return new SignJWT({ scope: CLOUD_PLATFORM_SCOPE })
    .setProtectedHeader({ alg: "RS256", typ: "JWT", ...(account.private_key_id ? { kid: account.private_key_id } : {}) })
    .setIssuer(account.client_email)
    .setAudience(tokenUri)
    .setIssuedAt()
    .setExpirationTime("1h")
    .sign(key);
}

async function refused(response: Response): Promise<GatewayError> {
  const text = await response.text();
  let reason = text.slice(0, 300);
  try {
    const body = JSON.parse(text) as { error?: string; error_description?: string };
    reason = body.error_description ?? body.error ?? reason;
  } catch {}
  return new GatewayError({ status: 401, errorType: "provider_auth_failed", isGatewayError: false, message: `the service account's token request was refused (${response.status}): ${reason}` });
}

async function mintToken(account: ServiceAccount, outbound: OutboundPolicy): Promise<MintedToken | GatewayError> {
  const tokenUri = account.token_uri ?? DEFAULT_TOKEN_URI;
  const assertion = await signedAssertion(account, tokenUri).catch((error: Error) => misconfigured(`the service account's private_key cannot sign: ${error.message}`));
  if (assertion instanceof GatewayError) return assertion;
  let response: Response;
  try {
    response = await guardedFetch(tokenUri, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: JWT_BEARER, assertion }),
      signal: AbortSignal.timeout(TOKEN_REQUEST_TIMEOUT_MS),
    }, outbound);
  } catch (error) {
    return upstreamUnreachable(`token endpoint ${tokenUri}: ${(error as Error).message}`);
  }
  if (!response.ok) return refused(response);
  const body = (await response.json().catch(() => ({}))) as { access_token?: string; expires_in?: number };
  if (!body.access_token) return new GatewayError({ status: 502, errorType: "provider_bad_response", message: "the token endpoint answered without an access_token" });
  return { value: body.access_token, expiresAt: Date.now() + (body.expires_in ?? 3600) * 1000 };
}

const tokens = singleFlightTokens<MintedToken>((token, now) => token.expiresAt - REFRESH_MARGIN_MS > now);

/** An access token for the account: the cached one while it is fresh, else one newly minted exchange shared by concurrent callers. */
export function accessTokenFor(account: ServiceAccount, outbound: OutboundPolicy): Promise<string | GatewayError> {
  const cacheKey = sha256Hex(`${account.client_email}\n${account.token_uri}\n${account.private_key}`);
  return tokens(cacheKey, () => mintToken(account, outbound));
}
