/** `bun run mcp-conformance`: the official MCP conformance suite against our conformance server, directly and through the gateway, and the 0.2.0 alpha's requirement sets through it. */
import { runConformanceSuite, runRequirements, startConformanceSetup } from "./support";

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
  // The 0.2.0 alpha, per revision: 2026-07-28 fails its input-required scenarios (test/conformance/conformance.test.ts says why).
  for (const target of ["/mcp/everything", "/mcp/v/everything"])
    for (const revision of ["2025-11-25", "2026-07-28"] as const) {
      const result = await runRequirements(`${setup.gw.url}${target}`, revision);
      console.log(`${target}, ${revision} requirements: ${result.passed} passed, ${result.failed} failed`);
      for (const line of result.scenarios) if (line.startsWith("✗") || process.argv.includes("--verbose")) console.log(`  ${line}`);
    }
} finally {
  await setup.close();
}
process.exit(failed === 0 ? 0 : 1);
