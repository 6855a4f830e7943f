/**
 * `npm run generate:client`: writes client/openapi.d.ts, the types of the management API as
 * /api/openapi.json describes it, with openapi-typescript. The document is built from a gateway
 * created in-process on a throwaway database (nothing listens).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createGateway } from "../src/app";
import { buildOpenApiDocument } from "../src/openapi/document";

export const CLIENT_TYPES_PATH = resolve(import.meta.dir, "../client/openapi.d.ts");

type Generator = typeof import("openapi-typescript");

/**
 * openapi-typescript builds its output with TypeScript 5's compiler API, which TypeScript 7 (the
 * project's `typescript`) no longer ships: it is bundled here with its `typescript` import bound
 * to the `typescript-5` package, and loaded from the bundle.
 */
async function loadGenerator(folder: string): Promise<Generator> {
  const typescript5 = Bun.fileURLToPath(import.meta.resolve("typescript-5"));
  const built = await Bun.build({
    entrypoints: [Bun.fileURLToPath(import.meta.resolve("openapi-typescript"))],
    target: "bun",
    plugins: [{ name: "typescript-5", setup: (build) => void build.onResolve({ filter: /^typescript$/ }, () => ({ path: typescript5, external: true })) }],
  });
  if (!built.success) throw new AggregateError(built.logs, "openapi-typescript did not bundle");
  const file = join(folder, "openapi-typescript.mjs");
  await Bun.write(file, built.outputs[0]!);
  return (await import(file)) as Generator;
}

/**
 * The management part (`/api/...`) of the document the gateway serves at /api/openapi.json, with
 * every optional area mounted. Inference is left out: each provider's own SDK is its client.
 */
async function managementDocument(folder: string): Promise<object> {
  const gateway = await createGateway({ config: { edition: "enterprise", setup_token: "generate-client" }, databaseUrl: `file:${join(folder, "gateway.db")}`, env: { GATEWAY_ENCRYPTION_KEY: "generate-client" } });
  try {
    const document = buildOpenApiDocument(gateway.app);
    return { ...document, paths: Object.fromEntries(Object.entries(document.paths).filter(([path]) => path.startsWith("/api/"))) };
  } finally {
    await gateway.stop();
  }
}

/** The text of client/openapi.d.ts as the routes describe the API now. */
export async function generateClientTypes(): Promise<string> {
  const folder = mkdtempSync(join(tmpdir(), "gateway-client-"));
  try {
    const [document, generator] = await Promise.all([managementDocument(folder), loadGenerator(folder)]);
    const nodes = await generator.default(document as Parameters<Generator["default"]>[0], { silent: true });
    return generator.COMMENT_HEADER + generator.astToString(nodes);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const text = await generateClientTypes();
  writeFileSync(CLIENT_TYPES_PATH, text);
  console.log(`${CLIENT_TYPES_PATH}: ${(text.length / 1024).toFixed(0)} KB`);
}
