import { join } from "node:path";

/** One file of the built dashboard, kept in memory with its gzipped twin. */
export interface BuiltAsset {
  body: Uint8Array;
  gzipped: Uint8Array;
  type: string;
}

export interface DashboardBuild {
  /** The page every client route answers with; it names the hashed entry files. */
  html: string;
  /** Keyed by file name under ASSET_PREFIX, e.g. `main-3f9a1c2b.js`. */
  assets: Map<string, BuiltAsset>;
  /** What the browser must download before the first page draws: the entry script, gzipped. */
  initialJsGzipBytes: number;
  /** What the entry script imports later (pages loaded on demand), gzipped. */
  lazyJsGzipBytes: number;
  buildMs: number;
}

export const ASSET_PREFIX = "/ui/assets/";
/** The budget for the JavaScript of the first page, gzipped. */
export const INITIAL_JS_BUDGET_BYTES = 150 * 1024;

const ENTRY = join(import.meta.dir, "main.tsx");

function shell(script: string, styles: string[]): string {
  const links = styles.map((href) => `<link rel="stylesheet" href="${href}">`).join("");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark"><title>Gateway</title><link rel="icon" href="data:,">${links}</head><body><div id="app"></div><script type="module" src="${script}"></script></body></html>`;
}

/** Bundles src/ui with Bun's bundler into memory: content-hashed names, minified, nothing fetched from elsewhere. */
export async function buildDashboard(): Promise<DashboardBuild> {
  const started = performance.now();
  const result = await Bun.build({
    entrypoints: [ENTRY],
    target: "browser",
    minify: true,
    splitting: true,
    publicPath: ASSET_PREFIX,
    naming: { entry: "[name]-[hash].[ext]", chunk: "[name]-[hash].[ext]", asset: "[name]-[hash].[ext]" },
  });
  if (!result.success) throw new AggregateError(result.logs, "the dashboard did not build");
  const assets = new Map<string, BuiltAsset>();
  let entry = "";
  let initialJsGzipBytes = 0;
  let lazyJsGzipBytes = 0;
  const styles: string[] = [];
  for (const output of result.outputs) {
    const name = output.path.replace(/^.*[\\/]/, "");
    const body = new Uint8Array(await output.arrayBuffer());
    const gzipped = Bun.gzipSync(body, { level: 9 });
    assets.set(name, { body, gzipped, type: output.type });
    if (output.kind === "entry-point") {
      entry = ASSET_PREFIX + name;
      initialJsGzipBytes += gzipped.byteLength;
    } else if (name.endsWith(".css")) styles.push(ASSET_PREFIX + name);
    else if (name.endsWith(".js")) lazyJsGzipBytes += gzipped.byteLength;
  }
  return { html: shell(entry, styles), assets, initialJsGzipBytes, lazyJsGzipBytes, buildMs: performance.now() - started };
}

export const kilobytes = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

export function describeBuild(build: DashboardBuild): string {
  const lazy = build.lazyJsGzipBytes > 0 ? `, pages loaded on demand ${kilobytes(build.lazyJsGzipBytes)} gzipped` : "";
  return `dashboard built in ${Math.round(build.buildMs)} ms: initial JavaScript ${kilobytes(build.initialJsGzipBytes)} gzipped (budget ${kilobytes(INITIAL_JS_BUDGET_BYTES)})${lazy}`;
}
