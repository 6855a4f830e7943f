import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/**
 * The real Codex CLI (`@openai/codex`, pinned in package.json) run non-interactively: `codex exec`
 * with a throwaway HOME and CODEX_HOME, its model provider pointed at the gateway's /v1 with a
 * virtual key, update checks, analytics and feedback off, and every address but 127.0.0.1 sent to
 * a closed port (HTTP(S)_PROXY), so that a run reaches nothing but the test's gateway.
 */

const CODEX = resolve(import.meta.dir, "../../node_modules/.bin/codex");

/** The key variable the provider reads (`env_key`): the virtual key goes there. */
export const CODEX_KEY_VARIABLE = "GATEWAY_API_KEY";

/** config.toml as docs/clients.md tells users to write it. */
export const codexConfig = (baseUrl: string, model: string) => `model = "${model}"
model_provider = "gateway"
check_for_update_on_startup = false

[model_providers.gateway]
name = "AI gateway"
base_url = "${baseUrl}"
env_key = "${CODEX_KEY_VARIABLE}"
wire_api = "responses"

[analytics]
enabled = false

[feedback]
enabled = false
`;

export interface CodexRun {
  exitCode: number;
  /** The final message, as `codex exec` prints it on stdout. */
  stdout: string;
  stderr: string;
}

export interface CodexOptions {
  /** The gateway's OpenAI-format base URL: `<gateway>/v1`. */
  baseUrl: string;
  virtualKey: string;
  /** `provider/model`, as the gateway names it. */
  model: string;
  prompt: string;
  /** Files to put in the working directory, by name. */
  files?: Record<string, string>;
  /** `model_reasoning_effort`; Codex's default (none for a model it has no metadata for) when unset. */
  reasoningEffort?: "low" | "medium" | "high";
  timeoutMs?: number;
}

/** Runs `codex exec <prompt>` in a fresh working directory and home, removed afterwards. */
export async function runCodex({ baseUrl, virtualKey, model, prompt, files = {}, reasoningEffort, timeoutMs = 60_000 }: CodexOptions): Promise<CodexRun> {
  const root = mkdtempSync(join(tmpdir(), "codex-run-"));
  const home = join(root, "home");
  const codexHome = join(home, ".codex");
  const work = join(root, "work");
  mkdirSync(codexHome, { recursive: true });
  mkdirSync(work);
  writeFileSync(join(codexHome, "config.toml"), codexConfig(baseUrl, model));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(work, name), text);
  try {
    const effort = reasoningEffort ? ["-c", `model_reasoning_effort="${reasoningEffort}"`] : [];
    const child = Bun.spawn([CODEX, "exec", "--skip-git-repo-check", ...effort, prompt], {
      cwd: work,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      timeout: timeoutMs,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: home,
        CODEX_HOME: codexHome,
        [CODEX_KEY_VARIABLE]: virtualKey,
        HTTP_PROXY: "http://127.0.0.1:9",
        HTTPS_PROXY: "http://127.0.0.1:9",
        NO_PROXY: "127.0.0.1",
        NO_COLOR: "1",
      },
    });
    const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    return { exitCode, stdout, stderr };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
