import { badRequest } from "../http/errors";

const ENV_PREFIX = "env.";

/**
 * The variables `env.NAME` may read unless the configuration file says otherwise: provider keys
 * under their usual names (OPENAI_API_KEY, ANTHROPIC_API_KEY, ...) and two namespaces kept for
 * secrets the gateway should hand on. Nothing else of the host's environment (PATH, cloud
 * credentials, the gateway's own settings) is readable through a value someone wrote.
 */
export const DEFAULT_ENV_ALLOWLIST: readonly string[] = ["*_API_KEY", "PROVIDER_*", "GATEWAY_SECRET_*"];

/** The gateway's own settings (encryption key, setup token, audit signing key, ...): never readable through a reference. */
const isGatewaySetting = (name: string) => name.startsWith("GATEWAY_") && !name.startsWith("GATEWAY_SECRET_");

/** `NAME` exactly, `PREFIX*` or `*SUFFIX`. */
const matches = (pattern: string, name: string) => {
  if (pattern.endsWith("*")) return name.startsWith(pattern.slice(0, -1));
  if (pattern.startsWith("*")) return name.endsWith(pattern.slice(1));
  return name === pattern;
};

export const isEnvReference = (value: string) => value.startsWith(ENV_PREFIX);

const variableOf = (reference: string) => reference.slice(ENV_PREFIX.length);

/** A value as it is used: itself, or the allowed variable it refers to in one environment. */
export type EnvReader = (value: string) => string;

/**
 * `env.NAME` values written through the API or in the configuration file (provider keys, webhook,
 * MCP and A2A headers, MCP stdio envs, plugin configs) are references to the environment,
 * resolved when used and never stored resolved, and only to the variables the allow-list
 * (`env_references.allow` in the configuration file) names.
 */
export class EnvReferences {
  constructor(private readonly allowList: readonly string[] = DEFAULT_ENV_ALLOWLIST) {}

  allows(name: string): boolean {
    return !isGatewaySetting(name) && this.allowList.some((pattern) => matches(pattern, name));
  }

  /** The value itself, or the variable it refers to: empty when that is unset or not allowed. */
  resolve(value: string, env: Record<string, string | undefined> = process.env): string {
    if (!isEnvReference(value)) return value;
    const name = variableOf(value);
    return this.allows(name) ? (env[name] ?? "") : "";
  }

  /** Resolves against `env`, read at each call (a variable changed meanwhile is seen). */
  readerFor(env: Record<string, string | undefined>): EnvReader {
    return (value) => this.resolve(value, env);
  }

  /** A 400 naming the field when `value` refers to a variable the allow-list does not name. */
  checkWritten(value: string, param: string): void {
    const name = variableOf(value);
    if (this.allows(name)) return;
    const why = isGatewaySetting(name) ? "the gateway's own GATEWAY_* settings are never readable" : "it is not in env_references.allow of the configuration file";
    throw badRequest(`'${value}' cannot be used: ${why}`, param, "caller_env_reference_not_allowed");
  }
}

/**
 * For settings only the configuration file sets (the setup token, the admin password, telemetry
 * headers): its author chose them, so any variable may be named.
 */
export function resolveEnvReference(value: string, env: Record<string, string | undefined> = process.env): string {
  if (!isEnvReference(value)) return value;
  return env[variableOf(value)] ?? "";
}

/** Every string in a written body that is an `env.` reference, with the field it is in. */
export function* envReferencesIn(value: unknown, path = ""): Generator<{ reference: string; param: string }> {
  if (typeof value === "string") {
    if (isEnvReference(value)) yield { reference: value, param: path || "body" };
  } else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) yield* envReferencesIn(item, `${path}[${index}]`);
  } else if (value !== null && typeof value === "object") {
    for (const [field, item] of Object.entries(value)) yield* envReferencesIn(item, path ? `${path}.${field}` : field);
  }
}
