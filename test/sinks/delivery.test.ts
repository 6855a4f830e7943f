import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { createGateway } from "../../src/app";
import { ConfigError } from "../../src/config/load";
import type { LogSinkConfig } from "../../src/config/sections/log-sinks";
import { eventually } from "../support/eventually";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type LogSinkReceiver, type SinkRow, startLogSinkReceiver } from "../support/log-sink-receiver";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

const METRICS_TOKEN = "sink-metrics-token";
/** Short waits: a test sees several failures and a recovery within a second. */
const quick = { poll_interval_ms: 50, retry_backoff_initial_ms: 50, retry_backoff_max_ms: 200 };

let upstream: MockOpenAI;
let receiver: LogSinkReceiver;
let gw: TestGateway;
let client: OpenAI;
const folder = mkdtempSync(join(tmpdir(), "gateway-file-sink-"));
const filePath = join(folder, "logs", "gateway.jsonl");
const FILE_MAX_BYTES = 2048;

interface SinkStatus {
  name: string;
  state: string;
  delivered_rows: number;
  lag_rows: number;
  lag_seconds: number;
  last_row_at: string | null;
  last_delivered_at: string | null;
  failed_attempts: number;
  consecutive_failures: number;
  last_error: string | null;
}

beforeAll(async () => {
  upstream = startMockOpenAI();
  upstream.missingModels = ["no-such-model"];
  receiver = startLogSinkReceiver();
  const http = (name: string, more: Partial<LogSinkConfig> = {}) => ({ type: "http", name, url: `${receiver.url}/${name}?token=query-secret`, secret: receiver.secret, headers: { authorization: "Bearer header-secret" }, ...quick, ...more }) as LogSinkConfig;
  gw = await startGateway({
    providers: { openai: { keys: [{ id: "k1", value: "sk-upstream", models: ["*"] }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } } },
    telemetry: { metrics_token: METRICS_TOKEN },
    log_sinks: [
      http("all", { batch_size: 3 }),
      http("errors", { filter: 'status == "error" && status_code >= 400', fields: ["id", "model", "status", "status_code"] }),
      http("content", { include_content: true }),
      { type: "file", name: "file", path: filePath, max_bytes: FILE_MAX_BYTES, max_files: 2, batch_size: 1, ...quick },
    ],
  });
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  receiver.stop();
  upstream.stop();
  rmSync(folder, { recursive: true, force: true });
});

const chat = (content: string, model = "openai/gpt-4o-mini") => client.chat.completions.create({ model, messages: [{ role: "user", content }] }).catch(() => undefined);

async function statuses(): Promise<Map<string, SinkStatus>> {
  const response = await gw.admin("/api/log-sinks");
  expect(response.status).toBe(200);
  return new Map(((await response.json()) as { sinks: SinkStatus[] }).sinks.map((sink) => [sink.name, sink]));
}

/** Every stored log, oldest first. */
async function storedLogs(): Promise<Array<{ id: string; timestamp: string }>> {
  const body = (await (await gw.admin("/api/logs?limit=1000&sort_by=timestamp&order=asc")).json()) as { logs: Array<{ id: string; timestamp: string }> };
  return body.logs;
}

const idsOf = (rows: SinkRow[]) => rows.map((row) => row.id);
const rowsArrived = (path: string, count: number) => eventually(async () => receiver.rowsOn(path), (rows) => new Set(idsOf(rows)).size >= count, 10_000);

describe("an HTTP log sink", () => {
  test("gets every stored row, gzip and signed, in batches, and its status says what it delivered and that nothing is left", async () => {
    for (let index = 0; index < 7; index++) await chat(`hello ${index}`);
    const logs = await eventually(storedLogs, (found) => found.length === 7);
    const rows = await rowsArrived("/all", 7);
    expect(receiver.rejected).toEqual([]);
    expect(idsOf(rows)).toEqual(logs.map((log) => log.id));
    // Batches of at most 3 rows, each with its own message id.
    const batches = receiver.accepted.filter((batch) => batch.path === "/all");
    expect(batches.every((batch) => batch.rows.length <= 3)).toBe(true);
    expect(new Set(batches.map((batch) => batch.webhookId)).size).toBe(batches.length);
    const status = (await eventually(statuses, (found) => found.get("all")?.delivered_rows === 7)).get("all")!;
    expect(status).toMatchObject({ state: "delivering", delivered_rows: 7, lag_rows: 0, lag_seconds: 0, failed_attempts: 0, last_error: null });
    expect(status.last_row_at).toBe(logs.at(-1)!.timestamp);
  }, 30_000);

  test("a filter sends only the rows it is true for, cut to the configured fields; content only where asked for", async () => {
    await chat("this model does not exist", "openai/no-such-model");
    const logs = await eventually(storedLogs, (found) => found.length === 8);
    const failed = logs.at(-1)!;
    const [errorRow] = await rowsArrived("/errors", 1);
    expect(receiver.rowsOn("/errors")).toEqual([{ id: failed.id, model: "no-such-model", status: "error", status_code: 404 }]);
    expect(errorRow).toBeDefined();
    const withContent = await rowsArrived("/content", 8);
    expect(withContent.find((row) => row.id === logs[0]!.id)?.request_content).toMatchObject({ messages: [{ role: "user", content: "hello 0" }] });
    const plain = await rowsArrived("/all", 8);
    expect(plain.every((row) => !("request_content" in row) && !("response_content" in row))).toBe(true);
    expect(Object.keys(plain[0]!)).toContain("virtual_key_id");
  });

  test("a sink that is down backs off, then gets every row it missed once back; its status shows the failures and the last error, without secrets", async () => {
    const before = receiver.rowsOn("/all").length;
    receiver.down = true;
    for (let index = 0; index < 4; index++) await chat(`while down ${index}`);
    const failing = (await eventually(statuses, (found) => (found.get("all")?.consecutive_failures ?? 0) >= 3, 10_000)).get("all")!;
    expect(failing.lag_rows).toBe(4);
    expect(failing.last_error).toBe("the sink answered 503: down for maintenance");
    const everything = JSON.stringify(await (await gw.admin("/api/log-sinks")).json());
    for (const secret of [receiver.secret, "query-secret", "header-secret"]) expect(everything).not.toContain(secret);
    expect(receiver.rowsOn("/all")).toHaveLength(before);

    receiver.down = false;
    const logs = await storedLogs();
    const rows = await rowsArrived("/all", logs.length);
    expect(new Set(idsOf(rows))).toEqual(new Set(logs.map((log) => log.id)));
    // Nothing the sink refused counts as delivered: no row came twice.
    expect(rows).toHaveLength(logs.length);
    const recovered = (await eventually(statuses, (found) => found.get("all")?.consecutive_failures === 0 && found.get("all")?.lag_rows === 0)).get("all")!;
    expect(recovered.failed_attempts).toBeGreaterThanOrEqual(3);
    expect(recovered.state).toBe("delivering");

    const actor = (await (await gw.admin("/api/actors/log-sink/all")).json()) as { transitions: Array<{ to: unknown }> };
    expect(actor.transitions.map((transition) => transition.to)).toEqual(expect.arrayContaining(["delivering", "backing_off"]));
    const metrics = await (await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    expect(metrics).toContain(`gateway_log_sink_rows_delivered_total{sink="all"} ${logs.length}`);
    expect(metrics).toMatch(new RegExp(`gateway_log_sink_failed_attempts_total\\{sink="all"\\} ${recovered.failed_attempts}\\b`));
    expect(metrics).toContain('gateway_log_sink_lag_rows{sink="all"} 0');
  }, 30_000);
});

describe("a file log sink", () => {
  test("appends JSON lines and rotates by size, keeping max_files older files: the newest rows, in order", async () => {
    const logs = await storedLogs();
    await eventually(statuses, (found) => found.get("file")?.delivered_rows === logs.length);
    const files = [`${filePath}.2`, `${filePath}.1`, filePath];
    expect(files.map(existsSync)).toEqual([true, true, true]);
    expect(existsSync(`${filePath}.3`)).toBe(false);
    for (const file of files) expect(statSync(file).size).toBeLessThanOrEqual(FILE_MAX_BYTES);
    const kept = files.flatMap((file) => readFileSync(file, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line) as SinkRow));
    // The oldest rows went with the files rotated out; what is kept is the newest, each once.
    expect(kept.length).toBeGreaterThanOrEqual(3);
    expect(kept.length).toBeLessThan(logs.length);
    expect(idsOf(kept)).toEqual(logs.slice(-kept.length).map((log) => log.id));
  });
});

describe("deleting the newest logs", () => {
  test("after the newest logs are deleted, the rows stored next still reach the sink: their numbers are never handed out again", async () => {
    const logs = await storedLogs();
    await rowsArrived("/all", logs.length);
    const newest = logs.slice(-2).map((log) => log.id);
    expect((await gw.admin("/api/logs", { method: "DELETE", json: { ids: newest } })).status).toBe(200);
    await eventually(storedLogs, (found) => found.length === logs.length - 2);
    for (let index = 0; index < 3; index++) await chat(`after deletion ${index}`);
    const later = (await eventually(storedLogs, (found) => found.length === logs.length + 1)).slice(-3).map((log) => log.id);
    const rows = await rowsArrived("/all", logs.length + 3);
    expect(idsOf(rows).slice(-3)).toEqual(later);
    expect(rows).toHaveLength(logs.length + 3);
  }, 30_000);
});

describe("log sinks through the API", () => {
  const API_HEADER_SECRET = "Bearer api-header-secret";
  const sinkBody = () => ({ type: "http", name: "added", url: `${receiver.url}/added`, secret: receiver.secret, headers: { authorization: API_HEADER_SECRET }, allow_private_network: true, ...quick });

  test("a sink added through the API gets the rows stored from then on, without a restart; neither its secret nor its headers are answered", async () => {
    const created = await gw.admin("/api/log-sinks", { method: "POST", json: sinkBody() });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ name: "added", source: "api", type: "http", destination: `${receiver.url}/added`, state: "delivering" });
    const stored = (await storedLogs()).length;
    await chat("to the added sink");
    const logs = await eventually(storedLogs, (found) => found.length === stored + 1);
    const [row] = await rowsArrived("/added", 1);
    expect(row!.id).toBe(logs.at(-1)!.id);
    expect(receiver.rejected).toEqual([]);
    const listed = await (await gw.admin("/api/log-sinks")).text();
    for (const secret of [receiver.secret, API_HEADER_SECRET]) expect(listed).not.toContain(secret);
    expect((await statuses()).get("all")).toMatchObject({ source: "config" });
  }, 30_000);

  test("a wrong filter or field is a 400 naming it, a private address needs the opt-in, and a sink of the configuration is read-only", async () => {
    const post = (json: Record<string, unknown>) => gw.admin("/api/log-sinks", { method: "POST", json: { ...sinkBody(), name: "wrong", ...json } });
    await expectGatewayError(await post({ filter: "status ==" }), 400, { param: "filter" });
    await expectGatewayError(await post({ filter: "size(model) + 1" }), 400, { param: "filter" });
    await expectGatewayError(await post({ fields: ["id", "prompt"] }), 400, { param: "fields" });
    await expectGatewayError(await post({ allow_private_network: false }), 400, { param: "url" });
    await expectGatewayError(await post({ name: "added" }), 409, { param: "name" });
    await expectGatewayError(await post({ name: "all" }), 409, { param: "name" });
    await expectGatewayError(await gw.admin("/api/log-sinks/all", { method: "PUT", json: { type: "file", path: "/tmp/never.jsonl" } }), 409, { param: "name" });
    await expectGatewayError(await gw.admin("/api/log-sinks/all", { method: "DELETE" }), 409, { param: "name" });
    expect((await statuses()).has("wrong")).toBe(false);
  });

  test("an edit applies from the next batch and keeps the secret; a deleted sink stops and its actor ends", async () => {
    const { secret: _kept, name: _name, ...edited } = sinkBody();
    const changed = await gw.admin("/api/log-sinks/added", { method: "PUT", json: { ...edited, filter: 'status == "error"' } });
    expect(changed.status).toBe(200);
    expect(await changed.json()).toMatchObject({ name: "added", filter: 'status == "error"' });
    const before = receiver.rowsOn("/added").length;
    const stored = (await storedLogs()).length;
    await chat("passed over by the new filter");
    await chat("this model does not exist", "openai/no-such-model");
    const failed = (await eventually(storedLogs, (found) => found.length === stored + 2)).at(-1)!;
    const rows = await eventually(async () => receiver.rowsOn("/added"), (found) => found.length > before, 10_000);
    // Signed with the secret kept: the receiver verified it.
    expect(receiver.rejected).toEqual([]);
    expect(idsOf(rows.slice(before))).toEqual([failed.id]);

    expect((await gw.admin("/api/log-sinks/added", { method: "DELETE" })).status).toBe(200);
    expect((await gw.admin("/api/log-sinks/added")).status).toBe(404);
    const actor = (await (await gw.admin("/api/actors/log-sink/added")).json()) as { status: string };
    expect(actor.status).toBe("stopped");
  }, 30_000);
});

describe("log sinks in the configuration", () => {
  test("a filter that is not CEL, or a field no row has, stops the start with the setting named", async () => {
    const start = (sink: Partial<LogSinkConfig>) =>
      createGateway({ config: { log_sinks: [{ type: "file", name: "broken", path: "/tmp/never-written.jsonl", ...sink } as LogSinkConfig] }, databaseUrl: ":memory:", env: {} });
    await expect(start({ filter: "status ==" })).rejects.toThrow(ConfigError);
    await expect(start({ filter: "status ==" })).rejects.toThrow(/log_sinks\[0\]\.filter is not a valid CEL expression/);
    await expect(start({ filter: "size(model) + 1" })).rejects.toThrow("log_sinks[0].filter must be a boolean expression, not int");
    await expect(start({ fields: ["id", "prompt"] })).rejects.toThrow("log_sinks[0].fields names no field of a log row: prompt");
  });

  test("a start with every sink removed from the configuration ends their actors; the status is an empty list and /metrics has no sink figures", async () => {
    await gw.stop();
    const plain = await startGateway({ telemetry: { metrics_token: METRICS_TOKEN } }, { databaseUrl: gw.databaseUrl });
    try {
      expect(await (await plain.admin("/api/log-sinks")).json()).toEqual({ sinks: [], count: 0 });
      expect(await (await fetch(`${plain.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text()).not.toContain("gateway_log_sink");
      const actor = (await (await plain.admin("/api/actors/log-sink/all")).json()) as { status: string };
      expect(actor.status).toBe("stopped");
    } finally {
      await plain.close();
    }
  });
});
