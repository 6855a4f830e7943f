import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";

const AXE_SOURCE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/**
 * The serious and critical accessibility violations axe-core finds on the page as it is now,
 * one line each (rule, help, the first elements): an empty list is a page a screen reader or a
 * keyboard user can use.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate("typeof window.axe !== 'undefined'"))) await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate("window.axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations)")) as Violation[];
  return violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.help}: ${violation.nodes.slice(0, 3).map((node) => node.target.join(" ")).join(", ")}`);
}
