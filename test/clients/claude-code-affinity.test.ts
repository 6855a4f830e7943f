import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventually } from "../support/eventually";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockAnthropic, startMockAnthropic } from "../support/mock-anthropic";
import { claudeEnv } from "./claude-env";
import { startTrapProxy, type TrapProxy } from "./trap-proxy";

// The real Claude Code CLI through a provider with conversation affinity: its session header
// (the gateway does not pass it upstream) names the conversation, and every request of the run
// stays on one of the provider's keys.

const CLAUDE = join(import.meta.dir, "../../node_modules/.bin/claude");
const ANTHROPIC_KEY = "sk-ant-upstream-for-affinity";

let anthropic: MockAnthropic;
let trap: TrapProxy;
let gw: TestGateway;
let scratch: string;

beforeAll(async () => {
  anthropic = startMockAnthropic(ANTHROPIC_KEY);
  trap = await startTrapProxy();
  const keys = ["a", "b", "c"].map((id) => ({ id, value: ANTHROPIC_KEY }));
  gw = await startGateway({ providers: { anthropic: { keys, network_config: { base_url: anthropic.baseUrl, health: { conversation_affinity: true } } } } });
  scratch = mkdtempSync(join(tmpdir(), "claude-affinity-"));
});
afterAll(async () => {
  await gw.close();
  anthropic.stop();
  trap.stop();
  rmSync(scratch, { recursive: true, force: true });
});

test("Claude Code's x-claude-code-session-id keeps its tool loop on one key, and names the conversation in the log", async () => {
  writeFileSync(join(scratch, "notes.txt"), "the launch code is 4217-sunflower\n");
  const prompt = `What do my notes say? [call:Read {"file_path":"${join(scratch, "notes.txt")}"}]`;
  const child = Bun.spawn([CLAUDE, "-p", prompt, "--model", "claude-sonnet-4-5", "--output-format", "json"], {
    cwd: scratch,
    env: claudeEnv({ gatewayUrl: gw.url, apiKey: "unused-without-enforced-auth", model: "claude-sonnet-4-5", home: scratch, trapUrl: trap.url }),
    stdout: "pipe",
    stderr: "pipe",
    timeout: 60_000,
  });
  const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
  expect({ exit: await child.exited, stderr }).toMatchObject({ exit: 0 });
  expect((JSON.parse(stdout) as { result: string }).result).toContain("4217-sunflower");

  const messages = anthropic.requests.filter((request) => request.path.startsWith("/v1/messages") && !request.path.includes("count_tokens"));
  expect(messages.length).toBeGreaterThanOrEqual(2);
  type Row = { conversation_id: string | null; selected_key_id: string | null };
  const rows = await eventually(
    async () => ((await (await gw.admin("/api/logs?limit=1000")).json()) as { logs: Row[] }).logs,
    (logs) => logs.length >= messages.length,
  );
  expect(rows.length).toBe(messages.length);
  const conversations = new Set(rows.map((row) => row.conversation_id));
  expect(conversations.size).toBe(1);
  // Its session id (a UUID), not a conversation derived from the opening turns.
  expect([...conversations][0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  expect(new Set(rows.map((row) => row.selected_key_id)).size).toBe(1);
}, 90_000);
