/**
 * `npm run deps`: the folder-level import graph of src/ (which area imports which, with how many
 * files' imports stand behind each edge) and every import cycle that spans folders, each with the
 * file imports that close it. Exits 1 while such a cycle exists.
 */
import { cycles, fileGraph, folderGraph } from "./import-graph";

const folders = folderGraph(fileGraph());

console.log("Folder imports (folder -> the folders it imports, with the number of file imports behind each)\n");
for (const [from, edges] of [...folders].sort(([a], [b]) => a.localeCompare(b))) {
  const targets = [...edges].sort(([a], [b]) => a.localeCompare(b)).map(([to, imports]) => `${to.replace("src/", "")} (${imports.length})`);
  console.log(`${from.padEnd(24)} -> ${targets.join(", ") || "nothing"}`);
}

const found = cycles(new Map([...folders].map(([from, edges]) => [from, [...edges.keys()]])));
if (found.length === 0) {
  console.log("\nNo import cycle spans folders.");
} else {
  for (const group of found) {
    console.log(`\nCycle across ${group.join(", ")}:`);
    for (const from of group)
      for (const [to, imports] of folders.get(from) ?? [])
        if (group.includes(to)) for (const [file, target] of imports) console.log(`  ${file} -> ${target}`);
  }
  process.exitCode = 1;
}
