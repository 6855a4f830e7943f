/**
 * `npm run deps`: the folder-level import graph of src/ (which area imports which, with how many
 * files' imports stand behind each edge) and every import cycle that spans folders, each with the
 * file imports that close it. Exits 1 while such a cycle exists.
 *
 * `npm run deps -- --trace chat`: the modules of src/inference a plain chat call passes through
 * (see chat-trace.ts).
 */
import { cycles, fileGraph, folderGraph } from "./import-graph";

if (process.argv.includes("--trace")) {
  const traced = process.argv[process.argv.indexOf("--trace") + 1];
  if (traced !== "chat") {
    console.error("--trace takes the one call it can trace: chat");
    process.exit(2);
  }
  const { traceChat } = await import("./chat-trace");
  const { pipeline, asked } = await traceChat();
  console.log(`A plain chat call passes through ${pipeline.length} modules of src/inference:\n`);
  for (const module of pipeline) console.log(`  ${module}`);
  console.log(`\nand asks the attached operations whether they take part: ${asked.join(", ")}`);
  process.exit(0);
}

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
