import { sha256Hex } from "../crypto/sha256-hex";
import { extname, join, resolve } from "node:path";
import { type DownloadPolicy, downloadPluginSource } from "./download";
import type { GatewayPluginModule } from "./types";

export interface ModuleSources extends DownloadPolicy {
  /** Where downloaded modules are written before they are imported. */
  downloadDir: string;
}

/** An http(s) URL (or any other scheme, which the routes refuse); everything else is a file path. */
export const isRemotePath = (path: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(path);

const MODULE_EXTENSIONS = new Set([".js", ".mjs", ".cjs", ".ts", ".mts", ".tsx", ".jsx"]);

/** Each import gets a fresh module instance, so a reload picks up a changed file. */
let generation = 0;

async function downloadToFile(url: string, sources: ModuleSources): Promise<string> {
  const source = await downloadPluginSource(url, sources);
  const extension = extname(new URL(url).pathname).toLowerCase();
  const name = `${sha256Hex(url).slice(0, 16)}-${++generation}${MODULE_EXTENSIONS.has(extension) ? extension : ".js"}`;
  const file = join(sources.downloadDir, name);
  await Bun.write(file, source);
  return file;
}

function pluginOf(loaded: { default?: Partial<GatewayPluginModule> }): GatewayPluginModule {
  const candidate = loaded.default;
  if (typeof candidate?.name !== "string" || candidate.name === "" || typeof candidate.create !== "function") {
    throw new Error("the module's default export is not a plugin: expected { name: string, create(config, host) }");
  }
  return candidate as GatewayPluginModule;
}

/**
 * Imports a plugin module into the gateway process: a local path as it is (relative to the
 * working directory), an http(s) URL after a policy-checked download. Remote modules must be
 * self-contained (one bundled file): their relative imports have nothing to resolve against.
 */
export async function importPluginModule(path: string, sources: ModuleSources): Promise<GatewayPluginModule> {
  const file = isRemotePath(path) ? await downloadToFile(path, sources) : resolve(path);
  if (!(await Bun.file(file).exists())) throw new Error(`no module at ${file}`);
  return pluginOf(await import(`${file}?generation=${++generation}`));
}
