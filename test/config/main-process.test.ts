import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import packageJson from "../../package.json";
import { createGateway } from "../../src/app";
import { ConfigError, loadConfig } from "../../src/config/load";

const REPO_ROOT = resolve(import.meta.dir, "../..");
const workDir = mkdtempSync(join(tmpdir(), "gateway-main-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

let configCount = 0;
function writeConfig(contents: unknown): string {
  const path = join(workDir, `config-${++configCount}.json`);
  writeFileSync(path, typeof contents === "string" ? contents : JSON.stringify(contents));
  return path;
}

/** `bun src/main.ts ...args` from the repository root, on its own database. */
function startMain(args: string[], env: Record<string, string> = {}) {
  return Bun.spawn([process.execPath, "src/main.ts", ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, GATEWAY_DB_URL: `file:${join(workDir, `db-${++configCount}.sqlite`)}`, GATEWAY_ENCRYPTION_KEY: "main-test-key", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
}

async function runToExit(args: string[]) {
  const child = startMain(args);
  const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
  return { code, stderr };
}

const BAD_CONFIGS: Array<[string, unknown, RegExp]> = [
  ["a negative key weight", { providers: { openai: { keys: [{ weight: -1 }] } } }, /providers\.openai\.keys\[0\]\.weight/],
  ["a field of the wrong type", { server: { port: "eighty" } }, /server\.port/],
  ["an idle timeout beyond what Bun allows", { server: { idle_timeout_seconds: 600 } }, /server\.idle_timeout_seconds/],
  ["an unknown top-level field", { sever: { port: 1 } }, /sever/],
  ["regex:* in a key's models", { providers: { openai: { keys: [{ models: ["gpt-4o", "regex:*"] }] } } }, /providers\.openai\.keys\[0\]\.models\[1\]/],
  ["a pattern RE2 cannot compile", { providers: { openai: { keys: [{ blacklisted_models: ["regex:(?=x)"] }] } } }, /providers\.openai\.keys\[0\]\.blacklisted_models\[0\]/],
  ["an unknown provider without custom_provider_config", { providers: { nowhere: {} } }, /providers\.nowhere/],
  ["a custom provider without base_url", { providers: { mine: { custom_provider_config: { base_provider_type: "openai" } } } }, /providers\.mine\.network_config\.base_url/],
  ["a provider name that is not a name", { providers: { "Not A Name": {} } }, /providers\.Not A Name/],
  ["one key id twice", { providers: { openai: { keys: [{ id: "same" }, { id: "same" }] } } }, /providers\.openai\.keys\[1\]\.id/],
];

describe("a bad config.json is refused at start with a message naming the bad field", () => {
  for (const [what, config, field] of BAD_CONFIGS) {
    test(what, async () => {
      // The path main.ts takes: read and validate the file, then build the gateway (which seeds).
      const started = loadConfig(writeConfig(config)).then((loaded) => createGateway({ config: loaded, databaseUrl: `file:${join(workDir, `db-${++configCount}.sqlite`)}`, env: {} }));
      const error = await started.then(
        (gateway) => gateway.stop().then(() => undefined),
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(field);
    });
  }
});

describe("a config file that cannot be read is refused the same way", () => {
  test("a file that is not JSON", async () => {
    await expect(loadConfig(writeConfig("{ not json"))).rejects.toThrow(/not valid JSON/);
  });

  test("a file that does not exist", async () => {
    await expect(loadConfig(join(workDir, "missing.json"))).rejects.toThrow(/not found/);
    await expect(loadConfig(join(workDir, "missing.json"))).rejects.toBeInstanceOf(ConfigError);
  });
});

describe("bun src/main.ts exits with code 2 on a bad config.json", () => {
  const spawned: Array<[string, string]> = [
    ["a schema error", "a negative key weight"],
    ["a rule the API enforces", "regex:* in a key's models"],
  ];
  for (const [what, caseName] of spawned) {
    test(what, async () => {
      const [, config, field] = BAD_CONFIGS.find(([name]) => name === caseName)!;
      const { code, stderr } = await runToExit(["--config", writeConfig(config)]);
      expect({ code, stderr }).toMatchObject({ code: 2, stderr: expect.stringMatching(field) });
    });
  }
});

describe("a good config.json starts the gateway", () => {
  test("it listens where --port says, answers /health and /api/version, seeds providers, and exits cleanly on SIGTERM", async () => {
    const config = writeConfig({ setup_token: "main-setup", providers: { openai: { keys: [{ id: "seeded", value: "env.MAIN_TEST_OPENAI_KEY" }] } } });
    const child = startMain(["--config", config, "--port", "0", "--host", "127.0.0.1"], { MAIN_TEST_OPENAI_KEY: "sk-from-env" });
    try {
      const url = await listeningUrl(child.stdout);
      expect(await (await fetch(`${url}/health`)).json()).toMatchObject({ status: "ok" });
      expect(await (await fetch(`${url}/api/version`)).json()).toMatchObject({ version: packageJson.version });
      const key = await fetch(`${url}/api/providers/openai/keys/seeded`, { headers: { "x-gateway-setup-token": "main-setup" } });
      expect(await key.json()).toMatchObject({ id: "seeded", value: "env.MAIN_TEST_OPENAI_KEY" });
    } finally {
      child.kill("SIGTERM");
    }
    expect(await child.exited).toBe(0);
  });
});

/** Reads the child's stdout until it prints the address it listens on. */
async function listeningUrl(stdout: ReadableStream<Uint8Array>): Promise<string> {
  let seen = "";
  const decoder = new TextDecoder();
  for await (const bytes of stdout) {
    seen += decoder.decode(bytes, { stream: true });
    const match = seen.match(/listening on (http:\/\/[^\s]+)/);
    if (match) return match[1]!;
  }
  throw new Error(`the gateway exited without listening; it printed: ${seen}`);
}
