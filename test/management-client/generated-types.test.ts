import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { CLIENT_TYPES_PATH, generateClientTypes } from "../../scripts/generate-client";

test(
  "client/openapi.d.ts is what the routes describe now (npm run generate:client rewrites it)",
  async () => {
    const committed = readFileSync(CLIENT_TYPES_PATH, "utf8");
    const fresh = await generateClientTypes();
    // Compared line by line, so a failure names the operations that drifted rather than two 500 KB strings.
    if (fresh !== committed) expect(changedLines(committed, fresh)).toEqual([]);
    expect(fresh).toBe(committed);
  },
  120_000,
);

/** The lines of `fresh` that `committed` lacks, and the reverse, at most 20 of each. */
function changedLines(committed: string, fresh: string): string[] {
  const before = new Set(committed.split("\n"));
  const after = new Set(fresh.split("\n"));
  const added = [...after].filter((line) => !before.has(line)).slice(0, 20).map((line) => `+ ${line}`);
  const removed = [...before].filter((line) => !after.has(line)).slice(0, 20).map((line) => `- ${line}`);
  return [...removed, ...added];
}
