// Mutation testing of one module of test/mutation/modules.mjs, named by MUTATION_MODULE.
// Run through `bun run mutate [module...]` (test/mutation/mutate.mjs), not directly.
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MODULES } from "./test/mutation/modules.mjs";

const name = process.env.MUTATION_MODULE;
const module = MODULES[name];
if (!module) throw new Error(`MUTATION_MODULE must name one of: ${Object.keys(MODULES).join(", ")}`);

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: "command",
  // Each mutant runs only the covering test files, in a fresh Bun process (the command runner cannot tell tests apart).
  // --bail: a killed mutant stops at its first failing test.
  commandRunner: { command: `npx bun test --bail --timeout 20000 ${module.tests.join(" ")}` },
  coverageAnalysis: "off",
  mutate: module.mutate,
  // The machine is shared and the tests start servers: one mutant at a time.
  concurrency: 1,
  timeoutFactor: 2,
  timeoutMS: 15000,
  // Outside the repository, so that `bun test` never finds the sandbox's copies of the tests.
  tempDirName: join(tmpdir(), "gateway-stryker"),
  // Stryker rewrites the tsconfig with the TypeScript JS API, which TypeScript 7 no longer has; ours needs no rewriting.
  tsconfigFile: "no-tsconfig-to-rewrite.json",
  ignorePatterns: ["bench", "reports", "docs", "*.db", "*.db-wal", "*.db-shm"],
  reporters: ["clear-text", "progress", "json", "html"],
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  htmlReporter: { fileName: `reports/mutation/${name}.html` },
  clearTextReporter: { allowColor: false, logTests: false },
  thresholds: { high: 90, low: 80, break: null },
};
