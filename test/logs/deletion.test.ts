import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { generateFacts, type LogFact, openRequestLogs, recordFacts, settledFor } from "./seed-logs";

const DAY = 86_400_000;
let gw: TestGateway;

beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw.close());

async function remainingIds(query = ""): Promise<string[]> {
  const body = (await (await gw.admin(`/api/logs?limit=1000&${query}`)).json()) as { logs: Array<{ id: string }> };
  return body.logs.map((log) => log.id).sort();
}

const deleteLogs = (body: unknown) => gw.admin("/api/logs", { method: "DELETE", ...(body === undefined ? {} : { json: body }) });
const withPrefix = (prefix: string, facts: LogFact[]) => facts.map((fact) => ({ ...fact, id: `${prefix}-${fact.id}` }));

describe("DELETE /api/logs (spec 4.11)", () => {
  test("deletes the listed logs, ignores unknown ids and answers with the spec's message", async () => {
    const facts = withPrefix("del", generateFacts(12, new Date()));
    await recordFacts(gw.databaseUrl, facts);
    const doomed = [facts[1]!, facts[4]!, facts[7]!];
    const response = await deleteLogs({ ids: [...doomed.map((fact) => fact.id), "del-unknown"] });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ message: "Logs deleted successfully" });
    expect(await remainingIds()).toEqual(facts.filter((fact) => !doomed.includes(fact)).map((fact) => fact.id).sort());
    for (const fact of doomed) expect((await gw.admin(`/api/logs/${fact.id}`)).status).toBe(404);
  });

  test("a deleted log's content is no longer found by content_search", async () => {
    const [fact] = withPrefix("fts", generateFacts(1, new Date()));
    await recordFacts(gw.databaseUrl, [{ ...fact!, prompt: "ocelot sighting report" }]);
    expect(await remainingIds("content_search=ocelot")).toEqual([fact!.id]);
    await deleteLogs({ ids: [fact!.id] });
    expect(await remainingIds("content_search=ocelot")).toEqual([]);
  });

  test("deleting only unknown ids succeeds and changes nothing", async () => {
    const before = await remainingIds();
    const response = await deleteLogs({ ids: ["nope-1", "nope-2"] });
    expect(await response.json()).toEqual({ message: "Logs deleted successfully" });
    expect(await remainingIds()).toEqual(before);
  });

  test.each([
    ["no body", undefined, "body"],
    ["an empty object", {}, "ids"],
    ["an empty list", { ids: [] }, "ids"],
    ["ids that is not a list", { ids: "del-req-0001" }, "ids"],
    ["an id that is not a string", { ids: [42] }, "ids[0]"],
  ] as const)("%s is a 400 naming the field", async (_, body, param) => {
    await expectGatewayError(await deleteLogs(body), 400, { param, errorType: /^caller_/ });
  });

  test("malformed JSON is a 400", async () => {
    const response = await gw.admin("/api/logs", { method: "DELETE", headers: { "content-type": "application/json" }, body: "{ids: [" });
    await expectGatewayError(response, 400, { param: "body", errorType: "caller_invalid_json" });
  });
});

describe("retention: logs_store.retention_days", () => {
  test("a sweep runs at start and on every interval, removing logs older than the retention period", async () => {
    const start = new Date("2026-06-30T12:00:00.000Z");
    const facts = withPrefix("ret", generateFacts(10, start)).map((fact, index) => ({ ...fact, timestamp: new Date(start.getTime() - index * DAY - 3_600_000) }));
    await recordFacts(gw.databaseUrl, facts);
    let now = start;
    let awaiting: ((deleted: number) => void) | undefined;
    // Sweeps keep coming every 5 ms; wait for the first one that removed something.
    const sweepThatDeletes = () => new Promise<number>((resolve) => (awaiting = resolve));
    const first = sweepThatDeletes();
    const opened = await openRequestLogs(gw.databaseUrl, {
      retentionDays: () => 7,
      retentionIntervalMs: 5,
      clock: () => now,
      onRetentionSweep: (deleted) => {
        if (deleted > 0) awaiting?.(deleted);
      },
    });
    const remaining = async () => (await remainingIds()).filter((id) => id.startsWith("ret-"));
    try {
      expect(await first).toBe(3);
      expect(await remaining()).toEqual(facts.slice(0, 7).map((fact) => fact.id).sort());
      const second = sweepThatDeletes();
      now = new Date(start.getTime() + 2 * DAY);
      expect(await second).toBe(2);
      expect(await remaining()).toEqual(facts.slice(0, 5).map((fact) => fact.id).sort());
    } finally {
      await opened.close();
    }
  });

  test("a sweep removes more old logs than one deletion takes, in turns with new ones", async () => {
    const start = new Date("2026-07-30T12:00:00.000Z");
    const old = withPrefix("bulk", generateFacts(4_500, start)).map((fact) => ({ ...fact, timestamp: new Date(start.getTime() - 30 * DAY) }));
    await recordFacts(gw.databaseUrl, old);
    const cutoff = new Date(start.getTime() - 7 * DAY).toISOString();
    const olderThanCutoff = async () => ((await (await gw.admin(`/api/logs?end_time=${cutoff}&limit=1`)).json()) as { total: number }).total;
    const doomed = await olderThanCutoff();
    expect(doomed).toBeGreaterThanOrEqual(4_500);
    let swept!: (deleted: number) => void;
    const sweep = new Promise<number>((resolve) => (swept = resolve));
    const opened = await openRequestLogs(gw.databaseUrl, { retentionDays: () => 7, clock: () => start, onRetentionSweep: (deleted) => swept(deleted) });
    const fresh = withPrefix("fresh", generateFacts(3, start));
    for (const fact of fresh) opened.logs.recorder.settle!(...settledFor(fact));
    try {
      expect(await sweep).toBe(doomed);
      expect(await olderThanCutoff()).toBe(0);
      await opened.logs.flush();
      const remaining = await remainingIds();
      expect(remaining.filter((id) => id.startsWith("bulk-"))).toEqual([]);
      expect(remaining.filter((id) => id.startsWith("fresh-"))).toEqual(fresh.map((fact) => fact.id).sort());
    } finally {
      await opened.close();
    }
  });

  test("without retention_days nothing is removed", async () => {
    const facts = withPrefix("keep", generateFacts(3, new Date("2020-01-01T00:00:00Z")));
    await recordFacts(gw.databaseUrl, facts);
    let resolveSweep!: (deleted: number) => void;
    const swept = new Promise<number>((resolve) => (resolveSweep = resolve));
    const opened = await openRequestLogs(gw.databaseUrl, { onRetentionSweep: (deleted) => resolveSweep(deleted) });
    expect(await swept).toBe(0);
    await opened.close();
    expect((await remainingIds()).filter((id) => id.startsWith("keep-"))).toEqual(facts.map((fact) => fact.id).sort());
  });
});
