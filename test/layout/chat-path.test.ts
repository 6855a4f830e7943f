import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "../..");
const COUNT = /A plain chat call passes through (\d+) modules of src\/inference:\n\n((?: {2}\S+\n)+)/;

/** The count and the modules in a listing of `npm run deps -- --trace chat`. */
function listing(text: string): { count: number; modules: string[] } {
  const found = COUNT.exec(text);
  if (!found) throw new Error(`no listing of the chat path in:\n${text}`);
  return { count: Number(found[1]), modules: found[2]!.trim().split(/\s+/) };
}

test(
  "a plain chat call passes through no more modules of src/inference than its README lists, and through none it leaves out",
  async () => {
    const documented = listing(readFileSync(join(ROOT, "src/inference/README.md"), "utf8"));
    expect(documented.modules).toHaveLength(documented.count);
    const trace = Bun.spawn([process.execPath, "scripts/deps.ts", "--trace", "chat"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    const printed = await new Response(trace.stdout).text();
    expect(await trace.exited).toBe(0);
    const traced = listing(printed);
    expect(traced.modules).toHaveLength(traced.count);
    expect(traced.count).toBeLessThanOrEqual(documented.count);
    expect(traced.modules.filter((module) => !documented.modules.includes(module))).toEqual([]);
    // The call reaches the upstream and settles: the walk is the whole path, not a refusal's.
    expect(traced.modules).toContain("upstream-exchange");
    expect(traced.modules).toContain("deferred-settlements");
  },
  60_000,
);
