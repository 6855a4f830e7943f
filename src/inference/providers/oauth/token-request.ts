import { GatewayError } from "../../../http/errors";
import type { OAuthKeyConfig } from "../../../config/sections/providers";
import { upstreamUnreachable } from "../../../upstream/errors";
import { signedAssertion } from "./assertion";
import { authStyleOf, CLIENT_CREDENTIALS, grantTypeOf, JWT_BEARER } from "../../../upstream/oauth-config";
import { guardedFetch } from "../../../outbound/guarded-fetch";
import type { OutboundPolicy } from "../../../outbound/host-check";

const TOKEN_REQUEST_TIMEOUT_MS = 30_000;
/** Endpoints that do not say how long a token lives are taken to issue hour-long ones. */
const DEFAULT_EXPIRES_IN_SECONDS = 3600;

export interface AccessToken {
  value: string;
  issuedAt: number;
  expiresAt: number;
}

const misconfigured = (message: string) => new GatewayError({ status: 500, errorType: "gateway_provider_misconfigured", message });

/** Extra parameters travel as form fields; values that are not strings are sent as JSON. */
const asFormValue = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

/** The form and headers of the token request, client authentication placed as `auth_style` says. */
async function tokenRequest(config: OAuthKeyConfig, tokenUrl: string): Promise<{ form: URLSearchParams; headers: Record<string, string> }> {
  const grant = grantTypeOf(config);
  const form = new URLSearchParams({ grant_type: grant });
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", accept: "application/json" };
  if (grant === JWT_BEARER) form.set("assertion", await signedAssertion(config, config.private_key ?? "", tokenUrl));
  if (config.scopes?.length) form.set("scope", config.scopes.join(" "));
  if (config.audience && grant === CLIENT_CREDENTIALS) form.set("audience", config.audience);
  for (const [name, value] of Object.entries(config.extra_params ?? {})) form.set(name, asFormValue(value));
  const clientId = config.client_id ?? "";
  const secret = config.client_secret ?? "";
  if (clientId && secret && authStyleOf(config) === "header") {
    // RFC 6749 2.3.1: both parts form-encoded before they are joined.
    headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString("base64")}`;
  } else if (clientId) {
    form.set("client_id", clientId);
    if (secret) form.set("client_secret", secret);
  }
  return { form, headers };
}

async function refused(response: Response, tokenUrl: string): Promise<GatewayError> {
  const text = await response.text();
  let reason = text.slice(0, 300);
  try {
    const body = JSON.parse(text) as { error?: string; error_description?: string };
    reason = [body.error, body.error_description].filter(Boolean).join(": ") || reason;
  } catch {}
  return new GatewayError({ status: 401, errorType: "provider_auth_failed", isGatewayError: false, message: `the token endpoint ${tokenUrl} refused the key's credentials (${response.status}): ${reason}` });
}

/** Asks the key's token endpoint for a bearer token; failures come back as GatewayError values. */
export async function requestAccessToken(config: OAuthKeyConfig, outbound: OutboundPolicy): Promise<AccessToken | GatewayError> {
  const tokenUrl = config.token_url!;
  const request = await tokenRequest(config, tokenUrl).catch((error: Error) => misconfigured(`oauth_key_config cannot sign the assertion: ${error.message}`));
  if (request instanceof GatewayError) return request;
  let response: Response;
  try {
    response = await guardedFetch(tokenUrl, { method: "POST", headers: request.headers, body: request.form, signal: AbortSignal.timeout(TOKEN_REQUEST_TIMEOUT_MS) }, outbound);
  } catch (error) {
    return upstreamUnreachable(`token endpoint ${tokenUrl}: ${(error as Error).message}`);
  }
  if (!response.ok) return refused(response, tokenUrl);
  const body = (await response.json().catch(() => ({}))) as { access_token?: unknown; expires_in?: unknown };
  if (typeof body.access_token !== "string" || !body.access_token) {
    return new GatewayError({ status: 502, errorType: "provider_bad_response", message: `the token endpoint ${tokenUrl} answered without an access_token` });
  }
  const expiresIn = Number(body.expires_in ?? DEFAULT_EXPIRES_IN_SECONDS);
  const issuedAt = Date.now();
  return { value: body.access_token, issuedAt, expiresAt: issuedAt + (Number.isFinite(expiresIn) ? expiresIn : DEFAULT_EXPIRES_IN_SECONDS) * 1000 };
}
