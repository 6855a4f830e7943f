import { afterAll, beforeAll, expect, test } from "bun:test";
import { BUSY_TIMEOUT_MS, embeddedFilePath, openEmbeddedFile } from "../../src/db/embedded-file";
import { ON_LIBSQL_SERVER, startGateway, type TestGateway } from "../support/gateway";
import { eventually } from "../support/eventually";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { loggedCases } from "./logged-cases";

let upstream: MockOpenAI;
let gw: TestGateway;
let cases: ReturnType<typeof loggedCases>;

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({ providers: { openai: { keys: [{ id: "k1", value: "sk-upstream" }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } } } });
  cases = loggedCases(gw);
  await cases.warmUp();
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

const logQueue = async () => ((await (await gw.admin("/api/logs/stats")).json()) as { log_queue: { failed: number; dropped: number; retries: number } }).log_queue;

// Holds the embedded file's write lock from another connection: a libSQL server has no such file.
test.skipIf(ON_LIBSQL_SERVER)("a database locked for longer than the busy timeout delays the logs of the requests served meanwhile, and loses none", async () => {
  // Another process (a maintenance script, a second gateway on the file) holds the write lock.
  const { retries } = await logQueue();
  const other = openEmbeddedFile(embeddedFilePath(gw.databaseUrl)!);
  other.exec("BEGIN IMMEDIATE");
  for (const word of ["one", "two", "three"]) expect((await cases.chat(word, "locked")).choices[0]?.message.content).toContain(word);
  // The writer's first attempt waits out the whole busy timeout and fails before the lock goes.
  const retried = await eventually(async () => (await logQueue()).retries, (count) => count > retries, BUSY_TIMEOUT_MS + 5_000);
  expect(retried).toBeGreaterThan(retries);
  other.exec("COMMIT");
  other.close();

  expect(await cases.promptsOf(await cases.logged("locked", 3))).toEqual(["one", "three", "two"]);
  expect(await logQueue()).toMatchObject({ failed: 0, dropped: 0 });
}, 30_000);

test("a call still waiting on its upstream when the gateway stops is logged as cut, not lost", async () => {
  const stopping = await startGateway({ providers: { openai: { keys: [{ id: "k1", value: "sk-upstream" }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } } } });
  const seen = upstream.requests.length;
  upstream.faults.push({ kind: "delay", ms: 2_000 });
  const call = fetch(`${stopping.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-gw-metadata-case": "cut-by-stop" },
    body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "take your time" }] }),
  }).then(
    () => "answered",
    () => "cut",
  );
  await eventually(async () => upstream.requests.length, (count) => count > seen);
  await stopping.stop();
  expect(await call).toBe("cut");
  const restarted = await stopping.restart();
  try {
    const { logs } = (await (await restarted.admin("/api/logs?metadata_case=cut-by-stop")).json()) as { logs: Array<{ status: string; status_code: number }> };
    expect(logs.map(({ status, status_code }) => ({ status, status_code }))).toEqual([{ status: "error", status_code: 499 }]);
  } finally {
    await restarted.close();
  }
});
