import { isEnvReference } from "../config/env-reference";
import { GatewayError } from "../http/errors";
import type { RuntimeKey, RuntimeProvider } from "./runtime";

/** The environment variable a key's `value` names (`env.NAME`) when it is not set; undefined for a literal value or a set variable. */
export function unsetKeyVariable(key: Pick<RuntimeKey, "config">, env: Record<string, string | undefined> = process.env): string | undefined {
  const value = key.config.value;
  if (!value || !isEnvReference(value)) return undefined;
  const variable = value.slice("env.".length);
  return env[variable] ? undefined : variable;
}

const unsetMessage = (provider: string, key: RuntimeKey, variable: string) =>
  `key '${key.id}' of provider '${provider}' has value env.${variable}, but the environment variable ${variable} is not set`;

/** An attempt on a key whose variable is not set: said as such, where the provider would answer an unexplained 401. */
export const keyUnresolved = (provider: string, key: RuntimeKey, variable: string) =>
  new GatewayError({ status: 500, errorType: "provider_key_unresolved", message: `${unsetMessage(provider, key, variable)}: set it and restart the gateway, or change the key` });

/** What a key check records for such a key, in place of listing models without credentials. */
export const unresolvedKeyDescription = (provider: string, key: RuntimeKey, variable: string) => `${unsetMessage(provider, key, variable)}: requests on this key fail with provider_key_unresolved`;

/** Warns (on the console, where an operator starting the gateway looks) of every key whose variable is not set. */
export function warnOfUnsetKeyVariables(providers: readonly RuntimeProvider[], when: string): void {
  for (const provider of providers) {
    for (const key of provider.keys) {
      const variable = unsetKeyVariable(key);
      if (variable) console.warn(`${when}: ${unresolvedKeyDescription(provider.name, key, variable)}`);
    }
  }
}
