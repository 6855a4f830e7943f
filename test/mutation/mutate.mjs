// `bun run mutate [module...]`: StrykerJS on each named module (all when none is named), one
// after another, then one table of the scores. Reports: reports/mutation/<module>.{json,html}.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { MODULES } from "./modules.mjs";

const names = process.argv.slice(2);
for (const name of names) if (!MODULES[name]) throw new Error(`unknown module '${name}'; known: ${Object.keys(MODULES).join(", ")}`);
const chosen = names.length ? names : Object.keys(MODULES);

/** Counts by status in Stryker's mutation-testing-report JSON, and the score as Stryker computes it. */
function summary(name) {
  const file = `reports/mutation/${name}.json`;
  if (!existsSync(file)) return undefined;
  const report = JSON.parse(readFileSync(file, "utf8"));
  const counts = {};
  for (const { mutants } of Object.values(report.files)) for (const { status } of mutants) counts[status] = (counts[status] ?? 0) + 1;
  const detected = (counts.Killed ?? 0) + (counts.Timeout ?? 0);
  const valid = detected + (counts.Survived ?? 0) + (counts.NoCoverage ?? 0);
  return { counts, score: valid ? (100 * detected) / valid : 100 };
}

const failed = [];
for (const name of chosen) {
  const started = Date.now();
  console.log(`\n== ${name}: ${MODULES[name].mutate.join(", ")}\n   tests: ${MODULES[name].tests.join(" ")}`);
  const run = spawnSync("npx", ["stryker", "run", "stryker.config.mjs"], { stdio: "inherit", env: { ...process.env, MUTATION_MODULE: name } });
  if (run.status !== 0) failed.push(name);
  console.log(`== ${name}: ${Math.round((Date.now() - started) / 60_000)} min`);
}

console.log("\n| module | mutants | killed | timeout | survived | no coverage | score |\n|---|---|---|---|---|---|---|");
for (const name of chosen) {
  const result = summary(name);
  if (!result) {
    console.log(`| ${name} | no report | | | | | |`);
    continue;
  }
  const { counts, score } = result;
  const total = Object.values(counts).reduce((sum, count) => sum + count, 0);
  console.log(`| ${name} | ${total} | ${counts.Killed ?? 0} | ${counts.Timeout ?? 0} | ${counts.Survived ?? 0} | ${counts.NoCoverage ?? 0} | ${score.toFixed(1)} % |`);
}
if (failed.length) {
  console.error(`\nStryker failed for: ${failed.join(", ")}`);
  process.exit(1);
}
