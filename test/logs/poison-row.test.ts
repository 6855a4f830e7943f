import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { loggedCases } from "./logged-cases";

let upstream: MockOpenAI;
let gw: TestGateway;
let cases: ReturnType<typeof loggedCases>;

// Deeper than SQLite's JSON functions read (1,000 levels), within what this gateway is told to take.
const DEPTH = 1_100;
const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({
    server: { max_json_depth: 2_000 },
    providers: { openai: { keys: [{ id: "k1", value: "sk-upstream" }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } } },
  });
  cases = loggedCases(gw);
  await cases.warmUp();
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

const chatWithDeepField = (testCase: string) =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-gw-metadata-case": testCase },
    body: `{"model":"openai/gpt-4o-mini","messages":[{"role":"user","content":"deep and unindexable"}],"kept_as_sent":${nested(DEPTH)}}`,
  });

describe("a row SQLite refuses for what it holds costs only itself", () => {
  test("a request whose logged body is nested past SQLite's JSON depth is logged (without its full-text entry), and the requests after it are logged and searchable", async () => {
    expect((await chatWithDeepField("poison")).status).toBe(200);
    for (const word of ["after-one", "after-two", "after-three"]) await cases.chat(word, "poison");

    const logs = await cases.logged("poison", 4);
    expect(logs).toHaveLength(4);
    const search = (await (await gw.admin("/api/logs?content_search=after")).json()) as { total: number };
    expect(search.total).toBe(3);
    const stats = (await (await gw.admin("/api/logs/stats")).json()) as { log_queue: { failed: number; depth: number } };
    expect(stats.log_queue).toMatchObject({ failed: 0, depth: 0 });
  }, 20_000);
});
