import { afterAll, beforeAll, expect, test } from "bun:test";
import OpenAI from "openai";
import { BUSY_TIMEOUT_MS, embeddedFilePath, openEmbeddedFile } from "../../src/db/embedded-file";
import { eventually } from "../support/eventually";
import { ON_LIBSQL_SERVER, startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

let upstream: MockOpenAI;
let gw: TestGateway;
let client: OpenAI;

type LogPage = { logs: Array<{ id: string }> };
type LogDetail = { request_content: { messages: Array<{ content: string }> } };

const chat = (word: string, testCase: string) =>
  client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: word }] }, { headers: { "x-gw-metadata-case": testCase } });

const loggedCase = (testCase: string, count: number) =>
  eventually(
    async () => (await (await gw.admin(`/api/logs?metadata_case=${testCase}`)).json()) as LogPage,
    ({ logs }) => logs.length === count,
    10_000,
  );

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({ providers: { openai: { keys: [{ id: "k1", value: "sk-upstream" }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } } } });
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
  // Once a first log is stored, the writer thread is open and the gateway's start-up writes are done.
  await chat("warm", "warm-up");
  await loggedCase("warm-up", 1);
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

// Holds the embedded file's write lock from another connection: a libSQL server has no such file.
test.skipIf(ON_LIBSQL_SERVER)("a database locked for longer than the busy timeout delays the logs of the requests served meanwhile, and loses none", async () => {
  // Another process (a maintenance script, a second gateway on the file) holds the write lock.
  const other = openEmbeddedFile(embeddedFilePath(gw.databaseUrl)!);
  other.exec("BEGIN IMMEDIATE");
  for (const word of ["one", "two", "three"]) expect((await chat(word, "locked")).choices[0]?.message.content).toContain(word);
  // The writer's first attempt waits out the whole busy timeout and fails before the lock goes.
  await Bun.sleep(BUSY_TIMEOUT_MS + 1_000);
  other.exec("COMMIT");
  other.close();

  const { logs } = await loggedCase("locked", 3);
  const details = await Promise.all(logs.map(async ({ id }) => (await (await gw.admin(`/api/logs/${id}`)).json()) as LogDetail));
  expect(details.map((log) => log.request_content.messages[0]!.content).toSorted()).toEqual(["one", "three", "two"]);
  const stats = (await (await gw.admin("/api/logs/stats")).json()) as { log_queue: { failed: number; dropped: number } };
  expect(stats.log_queue).toMatchObject({ failed: 0, dropped: 0 });
}, 30_000);
