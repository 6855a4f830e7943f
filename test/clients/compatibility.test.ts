import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * docs/clients.md's compatibility table names, for each client and route, the test of the real
 * client that shows it working: each named test must be there, in test/clients/.
 */

const ROOT = join(import.meta.dir, "../..");
const ROW = /^\|(.+)\|\s*`([\w.-]+\.test\.ts)`: (.+?)\s*\|$/;

function tableRows(): Array<{ row: string; file: string; name: string }> {
  const doc = readFileSync(join(ROOT, "docs/clients.md"), "utf8");
  return doc.split("\n").flatMap((line) => {
    const found = ROW.exec(line);
    return found ? [{ row: found[1]!.trim(), file: found[2]!, name: found[3]! }] : [];
  });
}

test("every row of docs/clients.md's compatibility table names a test of test/clients/ that exists", () => {
  const rows = tableRows();
  expect(rows.length).toBeGreaterThanOrEqual(10);
  const missing = rows.filter(({ file, name }) => {
    const path = join(import.meta.dir, file);
    return !existsSync(path) || !readFileSync(path, "utf8").includes(name);
  });
  expect(missing).toEqual([]);
});
