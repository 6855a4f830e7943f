import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { driverRowOf, LOG_COLUMN_NAMES } from "../../src/logs/log-columns";
import { startGateway, type TestGateway } from "../support/gateway";
import { minimalLogRow, openRequestLogs } from "./seed-logs";

let gw: TestGateway;
const journalDir = mkdtempSync(join(tmpdir(), "gateway-journal-recovery-"));
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw.close();
  rmSync(journalDir, { recursive: true, force: true });
});

const pasted = "the harbour lease, clause by clause ".repeat(1_000);

const leftBehindRow = (id: string) => driverRowOf(minimalLogRow(id, { requestContent: JSON.stringify({ messages: [{ role: "user", content: pasted }] }) }));

test("a start recovers every journaled row, even when together they pass the queue's bytes", async () => {
  const ids = Array.from({ length: 6 }, (_, index) => `recovered-long-${index}`);
  // Left by a process that is gone: this pid, another start time.
  const lines = [JSON.stringify({ columns: LOG_COLUMN_NAMES }), ...ids.map((id) => JSON.stringify(leftBehindRow(id)))];
  writeFileSync(join(journalDir, `${process.pid}.1-0badc0de-00000000.jsonl`), `${lines.join("\n")}\n`);
  // ~37 KB a row: two at a time fit in the queue.
  const opened = await openRequestLogs(gw.databaseUrl, { journalDir, queueCapacityBytes: 100_000 });
  expect(await opened.logs.recoverJournal()).toBe(6);
  expect(opened.logs.queueStatus().dropped).toBe(0);
  await opened.close();
  for (const id of ids) expect((await gw.admin(`/api/logs/${id}`)).status).toBe(200);
  expect(readdirSync(journalDir)).toEqual([]);
});
