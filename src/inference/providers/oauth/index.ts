import { GatewayError } from "../../../http/errors";
import type { OAuthKeyConfig } from "../../../config/sections/providers";
import type { UpstreamCall, UpstreamTarget } from "../../../upstream/adapter";
import { cachedAccessToken } from "./token-cache";

/** A key mints its bearer when it has no value of its own and names a token endpoint. */
export const mintsBearer = (target: UpstreamTarget): OAuthKeyConfig | undefined => {
  const config = target.key?.config.oauth_key_config;
  return !target.key?.secret && config?.token_url ? config : undefined;
};

/** The config with its secrets' `env.NAME` references read, as the token request sends them. */
const withSecretsRead = (config: OAuthKeyConfig, target: UpstreamTarget): OAuthKeyConfig => ({
  ...config,
  ...(config.client_secret !== undefined ? { client_secret: target.readEnv(config.client_secret) } : {}),
  ...(config.private_key !== undefined ? { private_key: target.readEnv(config.private_key) } : {}),
});

/**
 * `authorizeCall` for bearer-token providers: a key's non-empty value always wins (already in
 * the call, returned as it is, without a promise); otherwise its `oauth_key_config` mints the
 * bearer, cached until shortly before expiry.
 */
export function withMintedBearer(call: UpstreamCall, target: UpstreamTarget, config: OAuthKeyConfig | undefined = mintsBearer(target)): UpstreamCall | Promise<UpstreamCall | GatewayError> {
  return config ? mintedBearer(call, target, config) : call;
}

async function mintedBearer(call: UpstreamCall, target: UpstreamTarget, config: OAuthKeyConfig): Promise<UpstreamCall | GatewayError> {
  const token = await cachedAccessToken(withSecretsRead(config, target), target.outbound);
  if (token instanceof GatewayError) return token;
  return { ...call, headers: { ...call.headers, authorization: `Bearer ${token}` } };
}
