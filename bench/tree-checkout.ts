/**
 * A commit's tree to run beside the working tree: extracted with `git archive` into the system's
 * temporary directory (reused when there already), with this checkout's node_modules linked in.
 * No worktree or branch is created, so the repository itself is left as it was.
 */
import { existsSync, mkdirSync, realpathSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const repoRoot = resolve(import.meta.dir, "..");

function git(...args: string[]): string {
  const run = Bun.spawnSync(["git", ...args], { cwd: repoRoot });
  if (run.exitCode !== 0) throw new Error(`git ${args.join(" ")} failed:\n${run.stderr.toString()}`);
  return run.stdout.toString().trim();
}

/** The full hash a name (a short hash, a tag, `HEAD~3`) stands for. */
export const commitOf = (name: string): string => git("rev-parse", "--verify", `${name}^{commit}`);

/** The directory holding `commit`'s tree, ready to run. */
export function checkoutTree(commit: string): string {
  const full = commitOf(commit);
  const tree = join(tmpdir(), `gateway-tree-${full}`);
  if (existsSync(join(tree, "package.json"))) return tree;
  const staging = `${tree}.partial-${process.pid}`;
  mkdirSync(staging, { recursive: true });
  const archive = Bun.spawnSync(["sh", "-c", `git archive ${full} | tar -x -C '${staging}'`], { cwd: repoRoot });
  if (archive.exitCode !== 0) throw new Error(`extracting ${full} failed:\n${archive.stderr.toString()}`);
  symlinkSync(realpathSync(join(repoRoot, "node_modules")), join(staging, "node_modules"));
  rmSync(tree, { recursive: true, force: true });
  renameSync(staging, tree);
  return tree;
}
