import { createPrivateKey, type KeyObject } from "node:crypto";
import { isEnvReference } from "../config/env-reference";
import { badRequest } from "../http/errors";
import type { OAuthKeyConfig } from "../config/sections/providers";

export const CLIENT_CREDENTIALS = "client_credentials";
export const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";

export const GRANT_TYPES = [CLIENT_CREDENTIALS, JWT_BEARER] as const;
/** `header`: HTTP Basic with the client id and secret (RFC 6749 2.3.1); `body`: both as form fields. */
export const AUTH_STYLES = ["header", "body"] as const;
export const SIGNING_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"] as const;

export type GrantType = (typeof GRANT_TYPES)[number];
export type AuthStyle = (typeof AUTH_STYLES)[number];
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

/** A key's grant: as configured, else a JWT bearer grant when it has a private key to sign with. */
export const grantTypeOf = (config: OAuthKeyConfig): GrantType => (config.grant_type as GrantType | undefined) || (config.private_key ? JWT_BEARER : CLIENT_CREDENTIALS);
export const authStyleOf = (config: OAuthKeyConfig): AuthStyle => (config.auth_style as AuthStyle | undefined) || "header";
export const signingAlgorithmOf = (config: OAuthKeyConfig): SigningAlgorithm => (config.signing_algorithm as SigningAlgorithm | undefined) || "RS256";

/** The key types each algorithm family signs with; EC curves must match the algorithm's. */
const KEY_TYPES: Record<string, { type: readonly string[]; curve?: string }> = {
  RS: { type: ["rsa", "rsa-pss"] },
  PS: { type: ["rsa", "rsa-pss"] },
  ES256: { type: ["ec"], curve: "prime256v1" },
  ES384: { type: ["ec"], curve: "secp384r1" },
  ES512: { type: ["ec"], curve: "secp521r1" },
  EdDSA: { type: ["ed25519", "ed448"] },
};

function requireOneOf(value: string | undefined, allowed: readonly string[], param: string) {
  if (value && !allowed.includes(value)) throw badRequest(`${param} '${value}' is not supported; use one of: ${allowed.join(", ")}`, param);
}

/** Parses a PEM private key (PKCS#8, PKCS#1 or SEC1). */
export function parsePrivateKey(pem: string): KeyObject {
  return createPrivateKey({ key: pem, format: "pem" });
}

function checkPrivateKey(pem: string, algorithm: SigningAlgorithm, param: string) {
  let key: KeyObject;
  try {
    key = parsePrivateKey(pem);
  } catch {
    throw badRequest(`${param} is not a PEM private key`, param);
  }
  const expected = KEY_TYPES[algorithm] ?? KEY_TYPES[algorithm.slice(0, 2)]!;
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (!expected.type.includes(key.asymmetricKeyType ?? "") || (expected.curve && curve !== expected.curve)) {
    throw badRequest(`${param} is a ${key.asymmetricKeyType}${curve ? ` (${curve})` : ""} key, which cannot sign ${algorithm}`, param);
  }
}

function requireField(config: OAuthKeyConfig, field: keyof OAuthKeyConfig, prefix: string, why: string) {
  const value = config[field];
  if (typeof value !== "string" || value.trim() === "") throw badRequest(`${prefix}${field} is required ${why}`, `${prefix}${field}`);
}

function checkTokenUrl(url: string, param: string) {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {}
  if (!parsed || (parsed.protocol !== "https:" && parsed.protocol !== "http:")) throw badRequest(`${param} must be an http(s) URL`, param);
}

/**
 * The 400s of an `oauth_key_config`, each naming its field: unsupported grant_type,
 * signing_algorithm or auth_style, a token_url that is no URL; and, when the key has no `value`
 * (so the gateway mints its bearer), every field the grant needs, with a private key that
 * parses and suits the algorithm.
 */
export function validateOAuthKeyConfig(config: OAuthKeyConfig, keyHasValue: boolean, paramPrefix: string): void {
  const prefix = `${paramPrefix}oauth_key_config.`;
  requireOneOf(config.grant_type, GRANT_TYPES, `${prefix}grant_type`);
  requireOneOf(config.auth_style, AUTH_STYLES, `${prefix}auth_style`);
  requireOneOf(config.signing_algorithm, SIGNING_ALGORITHMS, `${prefix}signing_algorithm`);
  if (config.token_url) checkTokenUrl(config.token_url, `${prefix}token_url`);
  if (keyHasValue) return;
  const why = "when the key has no value and its bearer is minted";
  requireField(config, "token_url", prefix, why);
  if (grantTypeOf(config) === CLIENT_CREDENTIALS) {
    requireField(config, "client_id", prefix, `for the ${CLIENT_CREDENTIALS} grant`);
    requireField(config, "client_secret", prefix, `for the ${CLIENT_CREDENTIALS} grant`);
    return;
  }
  requireField(config, "private_key", prefix, "to sign the JWT bearer assertion");
  if (!isEnvReference(config.private_key!)) checkPrivateKey(config.private_key!, signingAlgorithmOf(config), `${prefix}private_key`);
  if (!config.issuer && !config.client_id) throw badRequest(`${prefix}issuer (or client_id) is required to sign the JWT bearer assertion`, `${prefix}issuer`);
}
