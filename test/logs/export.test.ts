import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parseCsv } from "../support/csv";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { generateFacts, type LogFact, recordFacts } from "./seed-logs";

type Log = Record<string, unknown> & { id: string };

let gw: TestGateway;
/** Values a CSV writer must quote, and one a spreadsheet would run as a formula. */
const awkward: LogFact = {
  ...generateFacts(1, new Date(), 99)[0]!,
  id: "req-awkward",
  metadata: { note: 'says "hi", then\nleaves', formula: "=HYPERLINK(1)" },
  prompt: "a prompt, with a comma",
  reply: "=1+1",
};

beforeAll(async () => {
  gw = await startGateway();
  // More rows than one page of the export reads (500), so the file is stitched from several.
  await recordFacts(gw.databaseUrl, [awkward, ...generateFacts(1_150, new Date())]);
});
afterAll(() => gw.close());

/** Every log matching `query` as GET /api/logs pages them, newest first. */
async function listed(query: string): Promise<Log[]> {
  const logs: Log[] = [];
  for (let offset = 0; ; offset += 1000) {
    const response = await gw.admin(`/api/logs?limit=1000&offset=${offset}&${query}`);
    expect(response.status).toBe(200);
    const page = ((await response.json()) as { logs: Log[] }).logs;
    logs.push(...page);
    if (page.length < 1000) return logs;
  }
}

async function exported(query: string): Promise<{ response: Response; text: string }> {
  const response = await gw.admin(`/api/logs/export?${query}`);
  expect(response.status).toBe(200);
  return { response, text: await response.text() };
}

/** A value as the CSV is expected to hold it: empty for null, JSON for lists and objects. */
const asCell = (value: unknown) => (value === null ? "" : typeof value === "object" ? JSON.stringify(value) : String(value));
const jsonLines = (text: string) => text.trimEnd().split("\n").map((line) => JSON.parse(line) as Log);

describe("GET /api/logs/export", () => {
  test("csv: a header and every matching row, as the list shows them, quoted by RFC 4180, named for download", async () => {
    const { response, text } = await exported("format=csv");
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toMatch(/^attachment; filename="logs-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ\.csv"$/);
    const [header, ...records] = parseCsv(text);
    const logs = await listed("");
    expect(logs).toHaveLength(1_151);
    expect(header).toEqual(Object.keys(logs[0]!));
    expect(records.map((record) => record[0])).toEqual(logs.map((log) => log.id));
    for (const [index, log] of logs.entries()) {
      const expected = Object.values(log).map(asCell);
      expect(records[index]).toEqual(expected);
    }
  });

  test("csv: text a spreadsheet would run as a formula starts with a quote mark", async () => {
    const { text } = await exported(`request_id=${awkward.id}&include_content=true`);
    const [header, record] = parseCsv(text);
    expect(record![header!.indexOf("response_content")]).toBe("'=1+1");
    expect(record![header!.indexOf("request_content")]).toContain("a prompt, with a comma");
  });

  test("jsonl: the same filters as the list, row for row", async () => {
    const query = "providers=openai,anthropic&status=success&min_latency=300&metadata_env=prod";
    const { response, text } = await exported(`format=jsonl&${query}`);
    expect(response.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
    expect(response.headers.get("content-disposition")).toMatch(/filename="logs-[\dT-]+Z\.jsonl"$/);
    const logs = await listed(query);
    expect(logs.length).toBeGreaterThan(10);
    expect(jsonLines(text)).toEqual(logs);
  });

  test("bodies only when asked for, as the log detail holds them", async () => {
    const [without] = jsonLines((await exported(`format=jsonl&request_id=${awkward.id}`)).text);
    expect(without).not.toHaveProperty("request_content");
    const [withContent] = jsonLines((await exported(`format=jsonl&request_id=${awkward.id}&include_content=true`)).text);
    const detail = (await (await gw.admin(`/api/logs/${awkward.id}`)).json()) as Log;
    expect(withContent).toEqual(detail);
    expect(withContent!.response_content).toBe("=1+1");
  });

  test("a filter nothing matches: the csv header alone, an empty jsonl", async () => {
    expect((await exported("providers=nobody")).text).toBe(`${parseCsv((await exported("request_id=req-0001")).text)[0]!.join(",")}\r\n`);
    expect((await exported("format=jsonl&providers=nobody")).text).toBe("");
  });

  test("an unknown format or a bad filter is a 400 naming the parameter", async () => {
    await expectGatewayError(await gw.admin("/api/logs/export?format=xml"), 400, { param: "format" });
    await expectGatewayError(await gw.admin("/api/logs/export?min_latency=fast"), 400, { param: "min_latency" });
  });

  test("with content logging turned off, no bodies leave, even those stored before", async () => {
    expect((await gw.admin("/api/config", { method: "PUT", json: { logs_store: { content_logging: false } } })).status).toBe(200);
    const [row] = jsonLines((await exported(`format=jsonl&request_id=${awkward.id}&include_content=true`)).text);
    expect(row!.id).toBe(awkward.id);
    expect(row).not.toHaveProperty("request_content");
    expect(row).not.toHaveProperty("response_content");
  });
});
