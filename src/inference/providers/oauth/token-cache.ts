import { createHash } from "node:crypto";
import { GatewayError } from "../../../http/errors";
import type { OAuthKeyConfig } from "../../../provider-registry/schemas";
import { type AccessToken, requestAccessToken } from "./token-request";

/** A token is replaced this long before it expires (at most a tenth of its lifetime), so it cannot expire mid-call. */
const REFRESH_MARGIN_MS = 60_000;

interface Entry {
  /** Shared by every request that arrives while the exchange is under way. */
  token: Promise<AccessToken | GatewayError>;
  settled?: AccessToken;
}

const entries = new Map<string, Entry>();

/** Tokens are shared by keys with the same endpoint, client and grant; secrets only enter as a hash. */
const cacheKeyOf = (config: OAuthKeyConfig) => createHash("sha256").update(JSON.stringify(config)).digest("hex");

const isFresh = (token: AccessToken, now: number) => token.expiresAt - Math.min(REFRESH_MARGIN_MS, (token.expiresAt - token.issuedAt) / 10) > now;

/**
 * A bearer for the config: the cached token while it is fresh, else one exchange shared by every
 * concurrent caller (no thundering herd on the token endpoint). Failures are not cached.
 */
export async function cachedAccessToken(config: OAuthKeyConfig): Promise<string | GatewayError> {
  const cacheKey = cacheKeyOf(config);
  const current = entries.get(cacheKey);
  if (current && (!current.settled || isFresh(current.settled, Date.now()))) {
    const token = await current.token;
    return token instanceof GatewayError ? token : token.value;
  }
  const entry: Entry = { token: requestAccessToken(config) };
  entries.set(cacheKey, entry);
  const token = await entry.token;
  if (token instanceof GatewayError) {
    if (entries.get(cacheKey) === entry) entries.delete(cacheKey);
    return token;
  }
  entry.settled = token;
  return token.value;
}
