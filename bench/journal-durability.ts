/**
 * What it costs to make a request's log row durable before its reply's last byte leaves: the
 * crash journal's write, measured three ways on rows of the size the gateway journals (about
 * 1.5 KB of JSON, content logging on), each in a fresh file under the system's temp folder:
 *
 * - `batched`: what the gateway did before, one write of every row appended in the last 10 ms
 *   (rows arriving at `--rate` a second); not durable against a kill within 10 ms of the reply.
 * - `per row`: one write(2) per row, what the gateway does before a reply's last byte leaves;
 *   durable against a kill (the kernel has the bytes), not against a power cut.
 * - `per row + fdatasync`: also durable against a power cut.
 *
 * CPU time (user + system, `process.cpuUsage`) and wall time per row. `npx bun bench/journal-durability.ts [--rows N] [--rate R]`
 */
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const args = new Map<string, string>();
for (let index = 2; index < process.argv.length; index += 2) args.set(process.argv[index]!.replace(/^--/, ""), process.argv[index + 1]!);
const rows = Number(args.get("rows") ?? 20_000);
const rate = Number(args.get("rate") ?? 2_000);

const row = `${JSON.stringify({ id: crypto.randomUUID(), provider: "openai", model: "gpt-4o-mini", input: "x".repeat(700), output: "y".repeat(600), status: 200 })}\n`;
const dir = mkdtempSync(join(tmpdir(), "journal-bench-"));

interface Measured {
  cpuUs: number;
  wallUs: number;
}

function measure(name: string, body: (fd: number) => void): Measured {
  const fd = openSync(join(dir, `${name.replace(/\W+/g, "-")}.jsonl`), "a");
  const cpu = process.cpuUsage();
  const started = performance.now();
  body(fd);
  const wallUs = ((performance.now() - started) * 1000) / rows;
  const used = process.cpuUsage(cpu);
  closeSync(fd);
  return { cpuUs: (used.user + used.system) / rows, wallUs };
}

const perRow = measure("per row", (fd) => {
  for (let index = 0; index < rows; index++) writeSync(fd, row);
});
const synced = measure("per row + fdatasync", (fd) => {
  for (let index = 0; index < rows; index++) {
    writeSync(fd, row);
    fdatasyncSync(fd);
  }
});
// Rows arriving at `rate` a second, written together every 10 ms: one write per rate/100 rows.
const perWrite = Math.max(1, Math.round(rate / 100));
const batched = measure("batched", (fd) => {
  for (let index = 0; index < rows; index += perWrite) writeSync(fd, row.repeat(Math.min(perWrite, rows - index)));
});
rmSync(dir, { recursive: true, force: true });

const line = (name: string, { cpuUs, wallUs }: Measured) => `${name.padEnd(22)} ${cpuUs.toFixed(1).padStart(8)} µs CPU ${wallUs.toFixed(1).padStart(8)} µs wall a row`;
console.log(`${rows} rows of ${row.length} bytes; batched as at ${rate} req/s (${perWrite} rows a write)`);
console.log(line("batched (10 ms)", batched));
console.log(line("per row", perRow));
console.log(line("per row + fdatasync", synced));
