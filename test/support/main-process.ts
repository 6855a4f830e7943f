import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const REPO_ROOT = resolve(import.meta.dir, "../..");

/** What `bun src/main.ts` prints once it listens; the first group is its URL. */
export const LISTENING = /listening on (http:\/\/[^\s]+)/;

/** A folder for the gateway processes a test file starts: their config files and databases. */
export function mainProcessWorkspace(prefix = "gateway-main-") {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  let count = 0;
  return {
    dir,
    /** A fresh path in the folder. */
    path: (name: string) => join(dir, `${++count}-${name}`),
    writeConfig(contents: unknown): string {
      const path = join(dir, `config-${++count}.json`);
      writeFileSync(path, typeof contents === "string" ? contents : JSON.stringify(contents));
      return path;
    },
    /** `bun src/main.ts ...args` from the repository root, on a database of its own unless `env` names one. */
    start(args: string[], env: Record<string, string> = {}) {
      return Bun.spawn([process.execPath, "src/main.ts", ...args], {
        cwd: REPO_ROOT,
        env: { ...process.env, GATEWAY_DB_URL: `file:${join(dir, `db-${++count}.sqlite`)}`, GATEWAY_ENCRYPTION_KEY: "main-test-key", ...env },
        stdout: "pipe",
        stderr: "pipe",
      });
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The child's output, read on as it comes: `until` resolves with the first match of `pattern` in all it printed so far. */
export function printed(output: ReadableStream<Uint8Array>) {
  const reader = output.getReader();
  const decoder = new TextDecoder();
  let seen = "";
  return async function until(pattern: RegExp): Promise<RegExpMatchArray> {
    for (;;) {
      const match = seen.match(pattern);
      if (match) return match;
      const { value, done } = await reader.read();
      if (done) throw new Error(`the gateway exited before printing ${pattern}; it printed: ${seen}`);
      seen += decoder.decode(value, { stream: true });
    }
  };
}
