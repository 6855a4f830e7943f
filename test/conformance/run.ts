/** `bun run mcp-conformance`: the official MCP conformance suite through the gateway, in front of the suite's reference server. */
import { runConformanceSuite, startConformanceSetup } from "./support";

const setup = await startConformanceSetup();
let failed = 0;
try {
  for (const path of ["/mcp/everything", "/mcp"]) {
    const result = await runConformanceSuite(`${setup.gw.url}${path}`);
    console.log(`${path}: ${result.passed} passed, ${result.failed} failed`);
    for (const line of result.scenarios) if (line.startsWith("✗") || process.argv.includes("--verbose")) console.log(`  ${line}`);
    if (path === "/mcp/everything") failed += result.failed;
  }
} finally {
  await setup.close();
}
process.exit(failed === 0 ? 0 : 1);
