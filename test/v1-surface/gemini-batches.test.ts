import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI, { toFile } from "openai";
import { postJson } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockGeminiBatches, startMockGeminiBatches } from "../support/mock-gemini-batches";

let upstream: MockGeminiBatches;
let gw: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  upstream = startMockGeminiBatches("gemini-batch-key");
  gw = await startGateway({ providers: { gemini: { keys: [{ id: "g-batch", value: "gemini-batch-key", use_for_batch_api: true }], network_config: { base_url: upstream.baseUrl } } } });
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0, defaultHeaders: { "x-gw-provider": "gemini" } });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

const line = (id: string, text: string) => ({ custom_id: id, method: "POST", url: "/v1/chat/completions", body: { model: "gemini/gemini-2.0-flash", messages: [{ role: "user", content: text }] } });
const jsonl = [line("one", "first"), line("two", "second")].map((entry) => JSON.stringify(entry)).join("\n");
const resultsOf = async (batchId: string) => (await (await fetch(`${gw.url}/v1/batches/${batchId}/results`)).text()).trim().split("\n").map((text) => JSON.parse(text));

describe("Gemini batch mode through /v1/files and /v1/batches", () => {
  let fileId: string;
  let batchId: string;

  test("a batch input file is uploaded with Gemini's resumable protocol, converted to {key, request} lines", async () => {
    const file = await client.files.create({ file: await toFile(Buffer.from(jsonl), "input.jsonl"), purpose: "batch" });
    fileId = file.id;
    expect(file).toMatchObject({ object: "file", filename: "input.jsonl", purpose: "batch", model: "gemini-2.0-flash" });
    const stored = [...upstream.files.values()][0]!;
    const lines = new TextDecoder().decode(stored.bytes).trim().split("\n").map((text) => JSON.parse(text));
    expect(lines).toEqual([
      { key: "one", request: expect.objectContaining({ contents: [{ role: "user", parts: [{ text: "first" }] }] }) },
      { key: "two", request: expect.objectContaining({ contents: [{ role: "user", parts: [{ text: "second" }] }] }) },
    ]);
    expect(upstream.requests.filter((request) => request.path.startsWith("/upload/")).map((request) => request.headers.get("x-goog-upload-command"))).toEqual(["start", "upload, finalize"]);
  });

  test("the batch runs the model the file recorded", async () => {
    const batch = await client.batches.create({ input_file_id: fileId, endpoint: "/v1/chat/completions", completion_window: "24h" });
    batchId = batch.id;
    expect(batch).toMatchObject({ status: "validating", input_file_id: fileId, request_counts: { total: 2 } });
    expect(upstream.requests.some((request) => request.path === "/v1beta/models/gemini-2.0-flash:batchGenerateContent")).toBe(true);
  });

  test("once it succeeded: the responses file is downloadable and /results translates it to OpenAI's lines", async () => {
    upstream.succeed([...upstream.batches.keys()][0]!);
    const done = await client.batches.retrieve(batchId);
    expect(done).toMatchObject({ status: "completed", request_counts: { total: 2, completed: 2 } });
    const raw = await (await client.files.content(done.output_file_id!)).text();
    expect(raw).toContain('"key":"one"');
    const lines = await resultsOf(batchId);
    expect(lines.map((entry) => [entry.custom_id, entry.response.body.choices[0].message.content])).toEqual([
      ["one", "echo: first"],
      ["two", "echo: second"],
    ]);
    expect(lines[0].response.body.usage).toMatchObject({ prompt_tokens: 4, completion_tokens: 2 });
  });

  test("inline requests need no file; their results come inlined", async () => {
    const response = await postJson(`${gw.url}/v1/batches`, { provider: "gemini", model: "gemini-2.0-flash", requests: [line("inline", "third")] });
    const batch = (await response.json()) as { id: string };
    upstream.succeed([...upstream.batches.keys()].at(-1)!);
    const [result] = await resultsOf(batch.id);
    expect(result).toMatchObject({ custom_id: "inline", response: { body: { choices: [{ message: { content: "echo: third" } }] } } });
  });

  test("list and cancel", async () => {
    const batch = await client.batches.create({ input_file_id: fileId, endpoint: "/v1/chat/completions", completion_window: "24h" });
    expect((await client.batches.cancel(batch.id)).status).toBe("cancelled");
    expect((await client.batches.list()).data.map((entry) => entry.id)).toEqual(expect.arrayContaining([batchId, batch.id]));
    expect((await client.files.list()).data.map((entry) => entry.filename)).toContain("input.jsonl");
  });
});
