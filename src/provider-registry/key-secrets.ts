import { isEnvReference } from "../config/env-reference";
import type { ProviderKeyInput } from "../config/sections/providers";

type SecretPath = readonly [] | readonly [section: keyof ProviderKeyInput, field: string];

/** Where a provider key holds secrets; every one is redacted in responses. */
const SECRET_PATHS: ReadonlyArray<readonly [keyof ProviderKeyInput, string] | readonly ["value"]> = [
  ["value"],
  ["azure_key_config", "client_secret"],
  ["vertex_key_config", "auth_credentials"],
  ["bedrock_key_config", "access_key"],
  ["bedrock_key_config", "secret_key"],
  ["bedrock_key_config", "session_token"],
  ["oauth_key_config", "client_secret"],
  ["oauth_key_config", "private_key"],
];

const MASK = "****";

/** Shows that a secret is set (and its last four characters when long) without revealing it; env references stay visible. */
export function redactSecret(secret: string): string {
  if (secret === "" || isEnvReference(secret)) return secret;
  return secret.length >= 16 ? `${MASK}${secret.slice(-4)}` : MASK;
}

type Section = Record<string, unknown>;

function mapSecrets(key: ProviderKeyInput, map: (current: string, path: SecretPath) => string): ProviderKeyInput {
  const copy: Record<string, unknown> = structuredClone(key);
  for (const path of SECRET_PATHS) {
    if (path.length === 1) {
      if (typeof copy.value === "string") copy.value = map(copy.value, []);
      continue;
    }
    const [sectionName, field] = path;
    const section = copy[sectionName] as Section | undefined;
    if (section && typeof section[field] === "string") section[field] = map(section[field] as string, path);
  }
  return copy as ProviderKeyInput;
}

export const redactKeySecrets = (key: ProviderKeyInput) => mapSecrets(key, redactSecret);

/**
 * A client that read a key and writes it back sends the redacted form; that means
 * "unchanged", so the stored secret is kept.
 */
export function keepRedactedSecrets(incoming: ProviderKeyInput, stored: ProviderKeyInput | undefined): ProviderKeyInput {
  if (!stored) return incoming;
  return mapSecrets(incoming, (value, path) => {
    const previous = path.length === 0 ? stored.value : ((stored[path[0]] as Section | undefined)?.[path[1]] as string | undefined);
    return previous !== undefined && value !== "" && value === redactSecret(previous) ? previous : value;
  });
}
