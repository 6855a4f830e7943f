import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockAnthropic, startMockAnthropic } from "../support/mock-anthropic";
import { type MockGemini, startMockGemini } from "../support/mock-gemini";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { type CompatibilityRow, compatibilityRows } from "./compatibility-table";
import { claudeEnv } from "./claude-env";
import { startTrapProxy, type TrapProxy } from "./trap-proxy";

// The real Claude Code CLI (`claude -p`), pointed at the gateway's /anthropic mount with a
// virtual key, runs a tool loop on each row of docs/clients.md's table: the mock model asks for
// its Read tool on a file in the working directory, the file's text reaches the mock, and the
// answer is printed. Anything the CLI tried to reach besides 127.0.0.1 would land in a trap proxy.

const CLAUDE = join(import.meta.dir, "../../node_modules/.bin/claude");
const ANTHROPIC_KEY = "sk-ant-upstream-for-claude-code";
const FILE_TEXT = "the launch code is 4217-sunflower";

let anthropic: MockAnthropic;
let openai: MockOpenAI;
let gemini: MockGemini;
let trap: TrapProxy;
let gw: TestGateway;
let virtualKey: string;
let scratch: string;

beforeAll(async () => {
  anthropic = startMockAnthropic(ANTHROPIC_KEY);
  openai = startMockOpenAI();
  gemini = startMockGemini();
  trap = await startTrapProxy();
  gw = await startGateway({
    enforce_auth_on_inference: true,
    providers: {
      anthropic: { keys: [{ id: "a", value: ANTHROPIC_KEY }], network_config: { base_url: anthropic.baseUrl } },
      openai: { keys: [{ id: "o", value: "sk-openai-for-claude-code" }], network_config: { base_url: openai.baseUrl } },
      gemini: { keys: [{ id: "g", value: gemini.apiKey }], network_config: { base_url: gemini.geminiBaseUrl } },
    },
  });
  virtualKey = ((await (await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name: "claude-code" } })).json()) as { virtual_key: { value: string } }).virtual_key.value;
  scratch = mkdtempSync(join(tmpdir(), "claude-code-"));
});
afterAll(async () => {
  await gw.close();
  anthropic.stop();
  openai.stop();
  gemini.stop();
  trap.stop();
  rmSync(scratch, { recursive: true, force: true });
});

interface CliResult {
  is_error: boolean;
  result: string;
  num_turns: number;
}

/** One `claude -p` run in a fresh working directory and HOME, with the gateway its only reachable address. */
async function runClaude({ model, env, args }: CompatibilityRow, name: string): Promise<CliResult> {
  const home = join(scratch, `${name}-home`);
  const work = join(scratch, `${name}-work`);
  for (const folder of [home, work]) rmSync(folder, { recursive: true, force: true });
  Bun.spawnSync(["mkdir", "-p", home, work]);
  writeFileSync(join(work, "notes.txt"), `${FILE_TEXT}\n`);
  const prompt = `What do my notes say? [call:Read {"file_path":"${join(work, "notes.txt")}"}]`;
  const child = Bun.spawn([CLAUDE, "-p", prompt, "--model", model, ...args, "--output-format", "json"], {
    cwd: work,
    env: { ...claudeEnv({ gatewayUrl: gw.url, apiKey: virtualKey, model, home, trapUrl: trap.url }), ...env },
    stdout: "pipe",
    stderr: "pipe",
    timeout: 60_000,
  });
  const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
  if ((await child.exited) !== 0) throw new Error(`claude exited ${child.exitCode}: ${stdout}\n${stderr}`);
  return JSON.parse(stdout) as CliResult;
}

type Body = Record<string, any>;

/** How a request, as it reached the provider, asks the model to think, in that provider's format; `none` when it does not. */
const THINKING: Record<string, (body: Body) => string | undefined> = {
  anthropic: (body) => body.thinking && `thinking: ${body.thinking.type}`,
  openai: (body) => body.reasoning_effort && `reasoning_effort: ${body.reasoning_effort}`,
  gemini: (body) => body.generationConfig?.thinkingConfig && `thinkingBudget: ${body.generationConfig.thinkingConfig.thinkingBudget}`,
};

const ENVIRONMENT = "# Environment";
const says = (content: unknown) => JSON.stringify(content ?? "").includes(ENVIRONMENT);

/** Where Claude Code's system message (its environment) reached the provider: as instructions, or in a user turn. */
const ENVIRONMENT_AS: Record<string, (body: Body) => string[]> = {
  anthropic: (body) => body.messages.filter((message: Body) => says(message.content)).map((message: Body) => message.role),
  openai: (body) => body.messages.filter((message: Body) => says(message.content)).map((message: Body) => message.role),
  gemini: (body) => [...(says(body.systemInstruction) ? ["system"] : []), ...body.contents.filter((content: Body) => says(content.parts)).map((content: Body) => content.role)],
};

/** Every request body the provider's mock received. */
function received(provider: string): Body[] {
  const mock = provider === "anthropic" ? anthropic : provider === "openai" ? openai : provider === "gemini" ? gemini : undefined;
  if (!mock) throw new Error(`docs/clients.md names a provider this test has no mock for: ${provider}`);
  return mock.requests.map((request) => request.body);
}

const rows = compatibilityRows(readFileSync(join(import.meta.dir, "../../docs/clients.md"), "utf8"), "Claude Code");

describe("Claude Code through /anthropic, each row of docs/clients.md", () => {
  test("the table has rows for every provider format", () => {
    expect(new Set(rows.map((row) => row.provider))).toEqual(new Set(["anthropic", "openai", "gemini"]));
  });

  for (const [index, row] of rows.entries()) {
    const options = [...row.args, ...Object.entries(row.env).map((entry) => entry.join("="))];
    test(`--model ${[row.model, ...options].join(" ")} to ${row.provider}, thinking as ${row.thinking}: the tool loop ${row.outcome}`, async () => {
      expect(row.outcome).toBe("works");
      const before = received(row.provider).length;
      const output = await runClaude(row, `row-${index}`);
      expect(output.is_error).toBe(false);
      expect(output.result).toContain(FILE_TEXT);
      const sent = received(row.provider).slice(before);
      // The prompt, then the file's text as the tool's result.
      expect(sent.length).toBeGreaterThanOrEqual(2);
      expect(JSON.stringify(sent.at(-1))).toContain(FILE_TEXT);
      expect(new Set(ENVIRONMENT_AS[row.provider]!(sent[0]!))).toEqual(new Set(["system"]));
      expect(sent.map((body) => THINKING[row.provider]!(body) ?? "none")).toEqual(sent.map(() => row.thinking));
      expect(trap.connections).toEqual([]);
    }, 90_000);
  }
});
