import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { cycles, fileGraph, folderGraph } from "../../scripts/import-graph";

const ROOT = join(import.meta.dir, "../..");
const areas = readdirSync(join(ROOT, "src")).filter((name) => statSync(join(ROOT, "src", name)).isDirectory());
const folders = folderGraph(fileGraph());

describe("the folders' imports", () => {
  test("no import cycle spans folders, and npm run deps says so", async () => {
    expect(cycles(new Map([...folders].map(([from, edges]) => [from, [...edges.keys()]])))).toEqual([]);
    const deps = Bun.spawn([process.execPath, "scripts/deps.ts"], { cwd: ROOT, stdout: "pipe" });
    const printed = await new Response(deps.stdout).text();
    expect(printed).toContain("src/db                   -> nothing");
    expect(printed).toContain("No import cycle spans folders.");
    expect(await deps.exited).toBe(0);
  });

  test("the cycle finder reports a cycle through any number of folders, and nothing hanging off it", () => {
    const graph = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a", "d"]],
      ["d", []],
      ["e", ["a"]],
    ]);
    expect(cycles(graph)).toEqual([["a", "b", "c"]]);
    expect(cycles(new Map([["a", ["b"]], ["b", []]]))).toEqual([]);
  });

  test("type-only imports count as imports", () => {
    // src/db/schema/logs.ts borrows only types from ./types.ts.
    expect(fileGraph().get("src/db/schema/logs.ts")).toContain("src/db/schema/types.ts");
  });

  test("src/db imports nothing from the areas, src/crypto only src/db", () => {
    expect([...(folders.get("src/db")?.keys() ?? [])]).toEqual([]);
    expect([...(folders.get("src/crypto")?.keys() ?? [])]).toEqual(["src/db"]);
  });
});

describe("the map in the READMEs", () => {
  test.each(areas)("src/%s/README.md opens with what the folder owns, exposes and may import, and names every folder it imports", (area) => {
    const lines = readFileSync(join(ROOT, "src", area, "README.md"), "utf8").split("\n");
    expect(lines[0]).toStartWith("# ");
    expect(lines[2]).toStartWith("- Owns: ");
    expect(lines[3]).toStartWith("- Exposes: ");
    expect(lines[4]).toStartWith("- May import: ");
    const allowed = lines[4]!
      .slice("- May import: ".length)
      .split(", ")
      .map((item) => /^[a-z0-9-]+/.exec(item)?.[0]);
    const imported = [...(folders.get(`src/${area}`)?.keys() ?? [])].map((folder) => folder.replace(/^src\//, ""));
    expect(imported.filter((folder) => !allowed.includes(folder))).toEqual([]);
  });

  test("the Layout of src/README.md has a line for every folder under src/", () => {
    const readme = readFileSync(join(ROOT, "src/README.md"), "utf8");
    const layout = readme.slice(readme.indexOf("## Layout"), readme.indexOf("## Tests"));
    expect(areas.filter((area) => !layout.includes(`\n  ${area}/ `))).toEqual([]);
  });
});
