import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

const UPSTREAM_SECRET = "sk-upstream-secret-0042";
let upstream: MockOpenAI;
let gw: TestGateway;

type LogRow = Record<string, unknown> & { id: string; request_content: { messages: Array<{ content: string }> } | null };

const clientFor = (gateway: TestGateway) => new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "unused", maxRetries: 0 });
const tagged = (name: string) => ({ headers: { "x-gw-metadata-case": name, "x-gw-session-id": "sess-e2e" } });

/** The log rows of one test case, read in full through the list and then the detail route. */
async function loggedCase(name: string): Promise<LogRow[]> {
  const { logs } = (await (await gw.admin(`/api/logs?metadata_case=${name}`)).json()) as { logs: Array<{ id: string }> };
  return Promise.all(logs.map(async (log) => (await (await gw.admin(`/api/logs/${log.id}`)).json()) as LogRow));
}

let toolsUsage: OpenAI.CompletionUsage | undefined;
let streamUsage: OpenAI.CompletionUsage | undefined;
let streamedText = "";
let longStreamedText = "";
/** Enough words that the reply arrives in a few hundred events. */
const LONG_PROMPT = Array.from({ length: 300 }, (_, index) => `word${index}`).join(" ");

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({ providers: { openai: { keys: [{ id: "k1", value: UPSTREAM_SECRET }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } } } });
  const client = clientFor(gw);
  const tools = await client.chat.completions.create(
    { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "what is the weather in Porto?" }], tools: [{ type: "function", function: { name: "get_weather", parameters: { type: "object" } } }] },
    tagged("tools"),
  );
  toolsUsage = tools.usage;
  const stream = await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "please echo lantern harbor" }], stream: true, stream_options: { include_usage: true } }, tagged("stream"));
  for await (const chunk of stream) {
    streamedText += chunk.choices[0]?.delta.content ?? "";
    streamUsage = chunk.usage ?? streamUsage;
  }
  const long = await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: LONG_PROMPT }], stream: true }, tagged("long-stream"));
  for await (const chunk of long) longStreamedText += chunk.choices[0]?.delta.content ?? "";
  upstream.faults.push({ kind: "status", status: 500, message: "upstream exploded" });
  await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "this one fails" }] }, tagged("failure")).catch(() => undefined);
  // Stopping flushes the log queue; the restarted gateway reads what was written.
  await gw.stop();
  gw = await gw.restart();
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

describe("every inference request through the gateway writes one log row", () => {
  test("a chat that called a tool: names, tokens, key, session and content", async () => {
    const [row, ...others] = await loggedCase("tools");
    expect(others).toEqual([]);
    expect(row).toMatchObject({
      object: "chat.completion",
      provider: "openai",
      model: "gpt-4o-mini",
      alias: null,
      status: "success",
      stop_reason: "tool_calls",
      tool_call_names: ["get_weather"],
      selected_key_id: "k1",
      session_id: "sess-e2e",
      metadata: { case: "tools" },
      stream: false,
      input_tokens: toolsUsage!.prompt_tokens,
      output_tokens: toolsUsage!.completion_tokens,
      total_tokens: toolsUsage!.total_tokens,
    });
    expect(row!.request_content!.messages[0]!.content).toBe("what is the weather in Porto?");
    expect(row!.latency).toBeGreaterThan(0);
  });

  test("a stream is logged when it ends, with its assembled text and time to first token", async () => {
    const [row] = await loggedCase("stream");
    expect(streamedText).toBe("echo: please echo lantern harbor");
    expect(row).toMatchObject({ stream: true, status: "success", response_content: streamedText, total_tokens: streamUsage!.total_tokens });
    expect(row!.time_to_first_token).toBeGreaterThan(0);
    expect(row!.time_to_first_token as number).toBeLessThanOrEqual(row!.latency as number);
  });

  test("a long stream's text is logged whole, in order", async () => {
    const [row] = await loggedCase("long-stream");
    expect(longStreamedText).toBe(`echo: ${LONG_PROMPT}`);
    expect(row).toMatchObject({ stream: true, status: "success", response_content: longStreamedText });
  });

  test("a failed request is logged as an error with its fault domain", async () => {
    const [row] = await loggedCase("failure");
    expect(row).toMatchObject({ status: "error", provider: "openai", model: "gpt-4o-mini", selected_key_id: "k1" });
    expect(row!.error_type).toMatch(/^provider_/);
    expect(row!.status_code).toBeGreaterThanOrEqual(500);
  });

  test("the logged content is searchable and never holds the upstream key", async () => {
    const found = (await (await gw.admin("/api/logs?content_search=lantern")).json()) as { logs: Array<{ metadata: Record<string, string> }> };
    expect(found.logs.map((log) => log.metadata.case)).toEqual(["stream"]);
    const everything = await (await gw.admin("/api/logs?limit=1000")).text();
    expect(everything).not.toContain(UPSTREAM_SECRET);
  });
});
