import { GatewayError } from "../../http/errors";

export interface MintedToken {
  value: string;
  expiresAt: number;
}

/**
 * Bearer tokens minted per credential (OAuth keys, Vertex service accounts): a cached token is
 * used while `isFresh` says so; otherwise one exchange is shared by every concurrent caller, so a
 * burst never stampedes the token endpoint. Failures are not cached.
 */
export function singleFlightTokens<T extends MintedToken>(isFresh: (token: T, now: number) => boolean) {
  const entries = new Map<string, { token: Promise<T | GatewayError>; settled?: T }>();
  return async function tokenFor(cacheKey: string, mint: () => Promise<T | GatewayError>): Promise<string | GatewayError> {
    const current = entries.get(cacheKey);
    if (current && (!current.settled || isFresh(current.settled, Date.now()))) {
      const token = await current.token;
      return token instanceof GatewayError ? token : token.value;
    }
    const entry: { token: Promise<T | GatewayError>; settled?: T } = { token: mint() };
    entries.set(cacheKey, entry);
    const token = await entry.token;
    if (token instanceof GatewayError) {
      if (entries.get(cacheKey) === entry) entries.delete(cacheKey);
      return token;
    }
    entry.settled = token;
    return token.value;
  };
}
