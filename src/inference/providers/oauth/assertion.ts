import { randomUUID } from "node:crypto";
import type { OAuthKeyConfig } from "../../../config/sections/providers";
import { parsePrivateKey, signingAlgorithmOf } from "../../../upstream/oauth-config";

const DEFAULT_LIFETIME_SECONDS = 300;

/** jose imports PKCS#8; keys written as PKCS#1 or SEC1 are converted first. */
async function signingKey(pem: string, algorithm: string) {
  const pkcs8 = parsePrivateKey(pem).export({ type: "pkcs8", format: "pem" }).toString();
  const { importPKCS8 } = await import("jose");
  return importPKCS8(pkcs8, algorithm);
}

/**
 * The JWT a jwt-bearer grant presents (RFC 7523): issued by `issuer` (or the client id), about
 * `subject` (or the issuer), for `audience` (or the token endpoint), valid for
 * `assertion_lifetime_seconds`, with a fresh `jti` so an endpoint may refuse replays.
 */
export async function signedAssertion(config: OAuthKeyConfig, privateKey: string, tokenUrl: string): Promise<string> {
  const algorithm = signingAlgorithmOf(config);
  const issuer = config.issuer || config.client_id!;
  const lifetime = config.assertion_lifetime_seconds || DEFAULT_LIFETIME_SECONDS;
  const now = Math.floor(Date.now() / 1000);
  // Loaded with the first assertion a gateway signs: most never do.
  const { SignJWT } = await import("jose");
  return new SignJWT(config.scopes?.length ? { scope: config.scopes.join(" ") } : {})
    .setProtectedHeader({ alg: algorithm, typ: "JWT", ...(config.key_id ? { kid: config.key_id } : {}) })
    .setIssuer(issuer)
    .setSubject(config.subject || issuer)
    .setAudience(config.audience || tokenUrl)
    .setIssuedAt(now)
    .setExpirationTime(now + lifetime)
    .setJti(randomUUID())
    .sign(await signingKey(privateKey, algorithm));
}
