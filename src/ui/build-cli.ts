// `bun run build:ui`: builds the dashboard as the gateway does on its first page request, and prints its size.
import { buildDashboard, describeBuild, INITIAL_JS_BUDGET_BYTES } from "./build";

const build = await buildDashboard();
console.log(describeBuild(build));
for (const [name, asset] of build.assets) console.log(`  /ui/assets/${name}  ${(asset.body.byteLength / 1024).toFixed(1)} KB, ${(asset.gzipped.byteLength / 1024).toFixed(1)} KB gzipped`);
if (build.initialJsGzipBytes > INITIAL_JS_BUDGET_BYTES) {
  console.error("the initial JavaScript is over its budget");
  process.exit(1);
}
