import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Glob } from "bun";
import type { TestGateway } from "../support/gateway";
import { createMcpClient, startMcpGateway } from "../mcp/support";
import { startMcpConformanceServer } from "../support/mcp-conformance-server";

const SUITE_PATH = join(import.meta.dir, "../../node_modules/@modelcontextprotocol/conformance/dist/index.js");
/** The suite's 0.2.0 alpha (installed as conformance-next): it checks the 2026-07-28 revision, by requirement set. */
const NEXT_SUITE_PATH = join(import.meta.dir, "../../node_modules/conformance-next/dist/index.js");

/** A virtual server `everything` bundling every tool, resource and prompt of the `everything` client, under their own names. */
async function bundleEverything(gw: TestGateway): Promise<void> {
  const { clients } = (await (await gw.admin("/api/mcp/clients")).json()) as { clients: Array<{ name: string; tools: Array<{ name: string }>; prompts: Array<{ name: string }> }> };
  const everything = clients.find((client) => client.name === "everything")!;
  const created = await gw.admin("/api/mcp/virtual-servers", {
    method: "POST",
    json: {
      slug: "everything",
      tools: everything.tools.map((tool) => ({ client: "everything", tool: tool.name })),
      resources: [{ client: "everything", uri: "*" }],
      prompts: everything.prompts.map((prompt) => ({ client: "everything", prompt: prompt.name })),
    },
  });
  if (created.status !== 201) throw new Error(`the virtual server was refused: ${await created.text()}`);
}

/** Our conformance server, and the gateway with it registered as `everything` and bundled whole as the virtual server `everything`. */
export async function startConformanceSetup(): Promise<{ gw: TestGateway; serverUrl: string; close(): Promise<void> }> {
  const server = startMcpConformanceServer();
  const gw = await startMcpGateway();
  await createMcpClient(gw, { name: "everything", connection_type: "http", connection_string: server.url, tools_to_execute: ["*"] });
  await bundleEverything(gw);
  return {
    gw,
    serverUrl: server.url,
    async close() {
      await gw.close();
      await server.stop();
    },
  };
}

export interface SuiteResult {
  passed: number;
  failed: number;
  /** Scenario lines, `✓ name: N passed, M failed` or `✗ ...`. */
  scenarios: string[];
  output: string;
}

/** Runs every server scenario of the conformance suite against `url` (the suite needs Node ≥ 22: Bun runs it). */
export const runConformanceSuite = (url: string) => runSuite([SUITE_PATH, "server", "--url", url, "--suite", "all"]);

export interface RequirementsResult extends SuiteResult {
  /** The checks that failed, as `scenario/check-id`, from the checks each scenario saved. */
  failedChecks: string[];
}

/**
 * Runs the scenarios a revision requires (`--requirements`), with the suite's 0.2.0 alpha; its
 * total also counts the scenarios it runs but does not score (extensions, pending ones).
 */
export async function runRequirements(url: string, revision: "2025-11-25" | "2026-07-28"): Promise<RequirementsResult> {
  const saved = await mkdtemp(join(tmpdir(), "mcp-conformance-"));
  try {
    const result = await runSuite([NEXT_SUITE_PATH, "server", "--url", url, "--requirements", revision, "--output-dir", saved]);
    return { ...result, failedChecks: await failedChecks(saved) };
  } finally {
    await rm(saved, { recursive: true, force: true });
  }
}

/** The suite saves each scenario's checks in `server-<scenario>-<time>/checks.json`. */
async function failedChecks(saved: string): Promise<string[]> {
  const failed: string[] = [];
  for await (const file of new Glob("*/checks.json").scan(saved)) {
    const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T/.exec(file)?.[1] ?? file;
    const checks = (await Bun.file(join(saved, file)).json()) as Array<{ id: string; status: string }>;
    failed.push(...checks.filter((check) => check.status === "FAILURE").map((check) => `${scenario}/${check.id}`));
  }
  return failed.sort();
}

async function runSuite(args: string[]): Promise<SuiteResult> {
  const suite = Bun.spawn([process.execPath, ...args], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr] = await Promise.all([new Response(suite.stdout).text(), new Response(suite.stderr).text()]);
  await suite.exited;
  const output = stdout + stderr;
  const total = /Total: (\d+) passed, (\d+) failed/.exec(output);
  if (!total) throw new Error(`the conformance suite gave no total:\n${output}`);
  return { passed: Number(total[1]), failed: Number(total[2]), scenarios: output.split("\n").filter((line) => /^[✓✗] /.test(line)), output };
}
