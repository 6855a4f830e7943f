import { sha256Hex } from "../../../crypto/sha256-hex";
import type { GatewayError } from "../../../http/errors";
import type { OAuthKeyConfig } from "../../../config/sections/providers";
import { singleFlightTokens } from "../single-flight-tokens";
import { type AccessToken, requestAccessToken } from "./token-request";
import type { OutboundPolicy } from "../../../outbound/host-check";

/** A token is replaced this long before it expires (at most a tenth of its lifetime), so it cannot expire mid-call. */
const REFRESH_MARGIN_MS = 60_000;

/** Tokens are shared by keys with the same endpoint, client and grant; secrets only enter as a hash. */
const cacheKeyOf = (config: OAuthKeyConfig) => sha256Hex(JSON.stringify(config));

const isFresh = (token: AccessToken, now: number) => token.expiresAt - Math.min(REFRESH_MARGIN_MS, (token.expiresAt - token.issuedAt) / 10) > now;

const tokens = singleFlightTokens<AccessToken>(isFresh);

/** A bearer for the config: the cached token while it is fresh, else one exchange shared by every concurrent caller. */
export const cachedAccessToken = (config: OAuthKeyConfig, outbound: OutboundPolicy): Promise<string | GatewayError> => tokens(cacheKeyOf(config), () => requestAccessToken(config, outbound));
