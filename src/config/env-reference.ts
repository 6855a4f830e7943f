const ENV_PREFIX = "env.";

/** `env.NAME` values are references to the environment, resolved when used, never stored resolved. */
export function resolveEnvReference(value: string, env: Record<string, string | undefined> = process.env): string {
  if (!value.startsWith(ENV_PREFIX)) return value;
  return env[value.slice(ENV_PREFIX.length)] ?? "";
}

export const isEnvReference = (value: string) => value.startsWith(ENV_PREFIX);
