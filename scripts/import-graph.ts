/**
 * The import graph of src/: every relative import (type-only and dynamic ones included, since
 * a type import ties folders together as much as a value import does), resolved to files, and
 * the same graph folded to folders.
 */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const EXTENSIONS = [".ts", ".tsx"];

export type FileGraph = Map<string, Set<string>>;

/** Every source file under a folder, as paths relative to the repository. */
function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder)).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(join(ROOT, path)).isDirectory()) return sourceFiles(path);
    return EXTENSIONS.some((extension) => name.endsWith(extension)) && !name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The file a relative specifier names, or undefined for a package or an asset. */
function resolveImport(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const base = join(dirname(from), specifier);
  const candidates = [base, ...EXTENSIONS.map((extension) => base + extension), ...EXTENSIONS.map((extension) => join(base, "index" + extension))];
  return candidates.find((candidate) => EXTENSIONS.some((extension) => candidate.endsWith(extension)) && existsSync(join(ROOT, candidate)));
}

const transpilers = { ts: new Bun.Transpiler({ loader: "ts" }), tsx: new Bun.Transpiler({ loader: "tsx" }) };

/**
 * The transpiler drops type-only imports; written as value imports they are kept (an unused
 * import stays in its scan), so a folder that only borrows a type still counts as depending.
 */
function withTypeImportsAsValues(source: string): string {
  return source
    .replace(/\b(import|export)\s+type(?=\s*[{*]|\s+[\w$]+\s+from\b)/g, "$1")
    .replace(/\b(import|export)(\s*\{)([^}]*)(\}\s*from\b)/g, (_, keyword: string, open: string, names: string, close: string) => keyword + open + names.replace(/\btype\s+/g, "") + close);
}

/** File → the files it imports, over every source file under `src/` and `actors/` (the lifecycles' machines). */
export function fileGraph(): FileGraph {
  const graph: FileGraph = new Map();
  for (const file of [...sourceFiles("src"), ...sourceFiles("actors")]) {
    const targets = transpilers[file.endsWith(".tsx") ? "tsx" : "ts"]
      .scanImports(withTypeImportsAsValues(readFileSync(join(ROOT, file), "utf8")))
      .map(({ path }) => resolveImport(file, path)).filter((target): target is string => target !== undefined && target !== file);
    graph.set(file, new Set(targets));
  }
  return graph;
}

/** The folder a file belongs to: `src/<area>`, `src` for the files at its top, or the top-level folder outside it (`actors`). */
export function folderOf(file: string): string {
  const [top, area, ...rest] = file.split("/");
  return top === "src" && rest.length > 0 ? `src/${area}` : top!;
}

/** Folder → folder → the file-level imports behind that edge. */
export function folderGraph(files: FileGraph): Map<string, Map<string, [string, string][]>> {
  const graph = new Map<string, Map<string, [string, string][]>>();
  for (const [file, targets] of files) {
    const from = folderOf(file);
    const edges = graph.get(from) ?? new Map<string, [string, string][]>();
    graph.set(from, edges);
    for (const target of targets) {
      const to = folderOf(target);
      if (to === from) continue;
      edges.set(to, [...(edges.get(to) ?? []), [file, target]]);
    }
  }
  return graph;
}

/** The strongly connected groups of more than one node (Tarjan): each is a cycle, or several. */
export function cycles(graph: Map<string, Iterable<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    if (group.length > 1) groups.push(group.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return groups;
}
