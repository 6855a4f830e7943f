import { Value } from "@sinclair/typebox/value";
import { fieldFromPath } from "../http/field-path";
import { GatewayConfig } from "./schema";

export class ConfigError extends Error {}

/** An environment variable of seconds above 0 (`name`'s `value`): undefined when unset; anything else stops the start. */
export function secondsVariable(name: string, value: string | undefined): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (!(seconds > 0) || !Number.isFinite(seconds)) throw new ConfigError(`${name} must be a number of seconds above 0, not '${value}'`);
  return seconds;
}

/** Reads and validates config.json; an absent path means an empty config. */
export async function loadConfig(path: string | undefined): Promise<GatewayConfig> {
  if (!path) return {};
  const file = Bun.file(path);
  if (!(await file.exists())) throw new ConfigError(`config file not found: ${path}`);
  let raw: unknown;
  try {
    raw = JSON.parse(await file.text());
  } catch (error) {
    throw new ConfigError(`config file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  return parseConfig(raw, path);
}

export function parseConfig(raw: unknown, source = "config"): GatewayConfig {
  const first = Value.Errors(GatewayConfig, raw).First();
  if (first) {
    const field = fieldFromPath(first.path) || "(root)";
    throw new ConfigError(`${source}: field '${field}' ${first.message.toLowerCase()}`);
  }
  return raw as GatewayConfig;
}
