import { expect, test } from "bun:test";

/**
 * `bun bench/logs.ts` is how an operator checks the log store on their machine. It seeds through
 * the real recorder and writer thread, waiting on the writer chunk by chunk (10,000 rows each), so
 * a small run of three chunks proves the seeding finishes and every dashboard query answers.
 */
test("bench/logs.ts seeds a database of three chunks through the writer thread and answers every dashboard query", async () => {
  // Killed if it hangs, within the suite's test timeout: a bench waiting on a writer that never answers would.
  const bench = Bun.spawn([process.execPath, "bench/logs.ts", "--rows", "30000", "--runs", "1"], { stdout: "pipe", stderr: "pipe", timeout: 15_000 });
  const [output, errors, code] = await Promise.all([new Response(bench.stdout).text(), new Response(bench.stderr).text(), bench.exited]);
  expect(errors).not.toContain("error");
  expect(code).toBe(0);
  expect(output).toContain("seeded 30,000 rows");
  expect(output).toMatch(/ingestion: [\d,]+ rows\/s wall, [\d,]+ rows per CPU-second \(target >= 20,000\); dropped: 0\n/);
  const queries = output.split("\n").filter((line) => / ms (ok|SLOW)$/.test(line));
  expect(queries).toHaveLength(13);
});
