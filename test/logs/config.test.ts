import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

let upstream: MockOpenAI;
let gw: TestGateway;

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({
    logs_store: { content_logging: false },
    providers: { openai: { keys: [{ id: "k1", value: "sk-upstream-secret-0077" }], network_config: { base_url: upstream.baseUrl } } },
  });
  const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
  await client.chat.completions.create(
    { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "the weather in Lisbon, please" }], tools: [{ type: "function", function: { name: "get_weather", parameters: { type: "object" } } }] },
    { headers: { "x-gw-metadata-case": "content-off" } },
  );
  await gw.stop();
  gw = await gw.restart();
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

describe("config.json logs_store", () => {
  test("content_logging: false keeps the row and its tool names but not the conversation", async () => {
    const { logs } = (await (await gw.admin("/api/logs?metadata_case=content-off")).json()) as { logs: Array<{ id: string }> };
    expect(logs).toHaveLength(1);
    const row = (await (await gw.admin(`/api/logs/${logs[0]!.id}`)).json()) as Record<string, unknown>;
    expect(row).toMatchObject({ status: "success", tool_call_names: ["get_weather"], request_content: null, response_content: null });
    const searched = (await (await gw.admin("/api/logs?content_search=Lisbon")).json()) as { logs: unknown[] };
    expect(searched.logs).toEqual([]);
  });
});
