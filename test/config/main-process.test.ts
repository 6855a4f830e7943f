import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createClient } from "@libsql/client";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import packageJson from "../../package.json";
import { createGateway } from "../../src/app";
import { ConfigError, loadConfig } from "../../src/config/load";
import { LISTENING, printed } from "../support/main-process";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

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
    const config = writeConfig({ setup_token: "main-setup", providers: { openai: { keys: [{ id: "seeded", value: "env.MAIN_TEST_OPENAI_API_KEY" }] } } });
    const child = startMain(["--config", config, "--port", "0", "--host", "127.0.0.1"], { MAIN_TEST_OPENAI_API_KEY: "sk-from-env" });
    try {
      const [, url] = await printed(child.stdout)(LISTENING);
      expect(await (await fetch(`${url}/health`)).json()).toMatchObject({ status: "ok" });
      expect(await (await fetch(`${url}/api/version`)).json()).toMatchObject({ version: packageJson.version });
      const key = await fetch(`${url}/api/providers/openai/keys/seeded`, { headers: { "x-gateway-setup-token": "main-setup" } });
      expect(await key.json()).toMatchObject({ id: "seeded", value: "env.MAIN_TEST_OPENAI_API_KEY" });
    } finally {
      child.kill("SIGTERM");
    }
    expect(await child.exited).toBe(0);
  });
});

describe("SIGTERM drains the gateway: the requests under way finish before it exits", () => {
  let upstream: MockOpenAI;
  beforeAll(() => {
    upstream = startMockOpenAI();
  });
  afterAll(() => upstream.stop());

  /** The gateway as a process, with `openai` on the mock, its database at `database` and the output it printed. */
  async function startDraining(database: string, server: Record<string, number> = {}) {
    const config = writeConfig({ server, providers: { openai: { keys: [{ id: "k", value: "sk-drain", models: ["*"] }], network_config: { base_url: upstream.baseUrl } } } });
    const child = startMain(["--config", config, "--port", "0"], { GATEWAY_DB_URL: `file:${database}` });
    const until = printed(child.stdout);
    const [, url] = await until(LISTENING);
    const held = upstream.holdNextStream();
    // The whole reply's text; a reply the stop cuts rejects, which the test awaits later.
    const reply = fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "openai/gpt-4o-mini", stream: true, messages: [{ role: "user", content: "finish me" }] }),
    }).then((response) => response.text());
    reply.catch(() => {});
    await held.arrived;
    child.kill("SIGTERM");
    await until(/gateway stopping/);
    return { child, url: url!, held, reply };
  }

  test("a stream in flight completes and is logged; a new connection is refused meanwhile; the exit code is 0", async () => {
    const database = join(workDir, "drained.sqlite");
    const { child, url, held, reply } = await startDraining(database);
    await expect(fetch(`${url}/health`)).rejects.toThrow();
    held.release(100);
    const text = await reply;
    expect([...text.matchAll(/"content":"([^"]*)"/g)].map(([, content]) => content).join("")).toBe("echo: finish me");
    expect(text).toEndWith("data: [DONE]\n\n");
    expect(await child.exited).toBe(0);
    const logs = createClient({ url: `file:${database}` });
    const { rows } = await logs.execute("SELECT status, stream FROM request_logs");
    logs.close();
    expect(rows.map(({ status, stream }) => ({ status, stream }))).toEqual([{ status: "success", stream: 1 }]);
  });

  test("past server.shutdown_grace_seconds what is left is cut, logged as cut, and the gateway still exits 0", async () => {
    const database = join(workDir, "cut.sqlite");
    const { child, reply } = await startDraining(database, { shutdown_grace_seconds: 0 });
    expect(await child.exited).toBe(0);
    await expect(reply).rejects.toThrow();
    const logs = createClient({ url: `file:${database}` });
    const { rows } = await logs.execute("SELECT status, stream FROM request_logs");
    logs.close();
    expect(rows.map(({ status, stream }) => ({ status, stream }))).toEqual([{ status: "error", stream: 1 }]);
  });
});
