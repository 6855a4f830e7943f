/** `bun run mcp-conformance`: the official MCP conformance suite against our conformance server, directly and through the gateway. */
import { runConformanceSuite, startConformanceSetup } from "./support";

const setup = await startConformanceSetup();
let failed = 0;
try {
  const targets = { direct: setup.serverUrl, "/mcp/everything": `${setup.gw.url}/mcp/everything`, "/mcp/v/everything": `${setup.gw.url}/mcp/v/everything`, "/mcp": `${setup.gw.url}/mcp` };
  for (const [target, url] of Object.entries(targets)) {
    const result = await runConformanceSuite(url);
    console.log(`${target}: ${result.passed} passed, ${result.failed} failed`);
    for (const line of result.scenarios) if (line.startsWith("✗") || process.argv.includes("--verbose")) console.log(`  ${line}`);
    if (target !== "/mcp") failed += result.failed;
  }
} finally {
  await setup.close();
}
process.exit(failed === 0 ? 0 : 1);
