import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startGateway, type TestGateway } from "../support/gateway";

interface LintProblem {
  ruleId: string;
  severity: "error" | "warn";
  message: string;
  location: Array<{ pointer: string }>;
}

const REDOCLY = join(import.meta.dir, "../../node_modules/@redocly/cli/bin/cli.js");
const CONFIG = join(import.meta.dir, "redocly.yaml");

let gateway: TestGateway;
let folder: string;
let document: { paths: Record<string, Record<string, { summary?: string; responses: Record<string, unknown> }>> };
let problems: LintProblem[];

/** `redocly lint` of the served document, with the recommended rules and the exceptions in redocly.yaml. */
async function lint(file: string): Promise<LintProblem[]> {
  const child = Bun.spawn(["node", REDOCLY, "lint", file, "--config", CONFIG, "--format=json", "--max-problems=100000"], {
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
  });
  const output = await new Response(child.stdout).text();
  await child.exited;
  return (JSON.parse(output) as { problems: LintProblem[] }).problems;
}

beforeAll(async () => {
  gateway = await startGateway();
  folder = mkdtempSync(join(tmpdir(), "gateway-openapi-"));
  const text = await (await fetch(`${gateway.url}/api/openapi.json`)).text();
  document = JSON.parse(text);
  const file = join(folder, "openapi.json");
  writeFileSync(file, text);
  problems = await lint(file);
}, 120_000);
afterAll(async () => {
  await gateway.close();
  rmSync(folder, { recursive: true, force: true });
});

describe("redocly lint of /api/openapi.json", () => {
  test("finds no error under the recommended rules (warnings are listed)", () => {
    const warnings = problems.filter((problem) => problem.severity === "warn");
    if (warnings.length > 0) console.log(`redocly lint: ${warnings.length} warnings\n${warnings.map((problem) => `  ${problem.ruleId} ${problem.location[0]?.pointer}`).join("\n")}`);
    expect(problems.filter((problem) => problem.severity === "error").map((problem) => `${problem.ruleId} ${problem.location[0]?.pointer}: ${problem.message}`)).toEqual([]);
  });

  test("every operation has a summary and answers its errors with the gateway's error body, 4xx included", () => {
    const operations = Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ path, method, operation })));
    expect(operations.filter(({ operation }) => !operation.summary).map(({ method, path }) => `${method} ${path}`)).toEqual([]);
    const created = document.paths["/api/governance/virtual-keys"]!.post!;
    expect(created.summary).toBe("Create a virtual key");
    expect(created.responses["400"]).toEqual({ $ref: "#/components/responses/Error400" });
    expect(created.responses["401"]).toEqual({ $ref: "#/components/responses/Error401" });
    expect(document.paths["/v1/chat/completions"]!.post!.responses["429"]).toEqual({ $ref: "#/components/responses/Error429" });
    // Every create that answers 201 says so, and none of them a 200 it never answers (the enterprise-only creates are not mounted here).
    const creates = ["/api/governance/virtual-keys", "/api/governance/teams", "/api/governance/customers", "/api/governance/routing-rules", "/api/governance/pricing-overrides", "/api/providers", "/api/providers/{provider}/keys", "/api/mcp/client", "/api/plugins", "/api/webhooks", "/api/agents", "/api/guardrails"];
    expect(creates.map((path) => ({ path, statuses: Object.keys(document.paths[path]?.post?.responses ?? {}).filter((status) => status.startsWith("2")) }))).toEqual(creates.map((path) => ({ path, statuses: ["201"] })));
    const lacking4xx = problems.filter((problem) => problem.ruleId === "operation-4xx-response").map((problem) => problem.location[0]?.pointer);
    expect(lacking4xx.filter((pointer) => pointer?.includes("/v1/") || pointer?.includes("governance"))).toEqual([]);
  });
});
