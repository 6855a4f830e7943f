import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "../config/load";
import type { Database } from "../db/client";
import { plugins } from "../db/schema";
import { reloadOnChange } from "../db/table-changes";
import { GatewayError } from "../http/errors";
import type { InferenceHooks } from "../inference/hooks";
import { AddressAllowlist } from "./address-policy";
import { type HostResolver, systemResolver } from "../outbound/host-check";
import { PluginRegistry } from "./registry";
import { pluginRoutes } from "./routes";
import type { PluginCreateInput } from "../config/sections/plugins";
import { PluginStore } from "./store";
import { pluginTransport } from "./transport";
import type { BuiltinPlugin } from "./types";
import type { EnvReader } from "../config/env-reference";

export type { BuiltinPlugin, GatewayPluginModule, PluginHooks, PluginHost } from "./types";
export type { HostResolver } from "../outbound/host-check";
export { AddressAllowlist } from "./address-policy";
export type { PluginRegistry } from "./registry";

const MAX_MODULE_BYTES = 5 * 1024 * 1024;
const DOWNLOAD_TIMEOUT_MS = 30_000;
const MAX_REDIRECTS = 5;

export interface PluginsOptions {
  db: Database;
  /** In hook order within their placement. */
  builtins: readonly BuiltinPlugin[];
  /** config.json `plugins`, applied once per name. */
  seeds?: readonly PluginCreateInput[];
  /** config.json `server.plugin_download_private_allowlist`. */
  privateAllowlist?: readonly string[];
  resolveHost?: HostResolver;
  readEnv: EnvReader;
}

/** An existing pipeline hook (logging, governance) listed and switched as a built-in plugin. */
export function builtinFromHooks(name: string, hooks: InferenceHooks, placement: BuiltinPlugin["placement"], failClosed: boolean): BuiltinPlugin {
  return { name, placement, failClosed, create: () => hooks };
}

async function seedFromConfig(registry: PluginRegistry, seeds: readonly PluginCreateInput[]): Promise<void> {
  for (const [index, seed] of seeds.entries()) {
    await registry.seed(seed).catch((error: unknown) => {
      if (!(error instanceof GatewayError)) throw error;
      throw new ConfigError(`config: field 'plugins[${index}]${error.param ? `.${error.param}` : ""}': ${error.message}`);
    });
  }
}

/**
 * The plugin registry with its built-ins and saved plugins loaded, the /api/plugins routes,
 * and the transport hooks to put in front of the inference routes. Plugins another node on the
 * same database adds, changes or removes are applied here within a second.
 */
export async function createPlugins(options: PluginsOptions) {
  const downloadDir = mkdtempSync(join(tmpdir(), "gateway-plugins-"));
  const registry = new PluginRegistry({
    store: new PluginStore(options.db),
    builtins: options.builtins,
    readEnv: options.readEnv,
    sources: {
      downloadDir,
      resolve: options.resolveHost ?? systemResolver,
      allowlist: new AddressAllowlist(options.privateAllowlist),
      maxBytes: MAX_MODULE_BYTES,
      timeoutMs: DOWNLOAD_TIMEOUT_MS,
      maxRedirects: MAX_REDIRECTS,
    },
  });
  const watched = reloadOnChange(options.db, [plugins], () => registry.load());
  try {
    await registry.load();
    await seedFromConfig(registry, options.seeds ?? []);
  } catch (error) {
    await watched.stop();
    throw error;
  }
  return {
    registry,
    routes: pluginRoutes(registry),
    transport: pluginTransport(() => registry.httpHooks),
    async close() {
      await watched.stop();
      await registry.close();
      rmSync(downloadDir, { recursive: true, force: true });
    },
  };
}

export type Plugins = Awaited<ReturnType<typeof createPlugins>>;
