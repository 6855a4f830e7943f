import { join } from "node:path";
import type { TestGateway } from "../support/gateway";
import { createMcpClient, startMcpGateway } from "../mcp/support";

const SERVER_PATH = join(import.meta.dir, "everything-server.ts");
const SUITE_PATH = join(import.meta.dir, "../../node_modules/@modelcontextprotocol/conformance/dist/index.js");

/** The suite's reference server on a free port, and the gateway with it registered as `everything`. */
export async function startConformanceSetup(): Promise<{ gw: TestGateway; serverUrl: string; close(): Promise<void> }> {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port!;
  await probe.stop(true);
  const server = Bun.spawn([process.execPath, SERVER_PATH], { env: { ...process.env, PORT: String(port) }, stdout: "pipe", stderr: "inherit" });
  const serverUrl = `http://localhost:${port}/mcp`;
  const reader = server.stdout.getReader();
  let output = "";
  while (!output.includes("MCP endpoint")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the reference server did not start: ${output}`);
    output += new TextDecoder().decode(value);
  }
  void (async () => {
    while (!(await reader.read()).done);
  })();
  const gw = await startMcpGateway();
  await createMcpClient(gw, { name: "everything", connection_type: "http", connection_string: serverUrl, tools_to_execute: ["*"] });
  return {
    gw,
    serverUrl,
    async close() {
      await gw.close();
      server.kill();
      await server.exited;
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
export async function runConformanceSuite(url: string): Promise<SuiteResult> {
  const suite = Bun.spawn([process.execPath, SUITE_PATH, "server", "--url", url, "--suite", "all"], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr] = await Promise.all([new Response(suite.stdout).text(), new Response(suite.stderr).text()]);
  await suite.exited;
  const output = stdout + stderr;
  const total = /Total: (\d+) passed, (\d+) failed/.exec(output);
  if (!total) throw new Error(`the conformance suite gave no total:\n${output}`);
  return { passed: Number(total[1]), failed: Number(total[2]), scenarios: output.split("\n").filter((line) => /^[✓✗] /.test(line)), output };
}
