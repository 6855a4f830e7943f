import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI, { toFile } from "openai";
import { expectGatewayError, postJson } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockAnthropicBatches, startMockAnthropicBatches } from "../support/mock-anthropic-batches";

let upstream: MockAnthropicBatches;
let gw: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  upstream = startMockAnthropicBatches("sk-ant-batch-0001");
  gw = await startGateway({
    providers: {
      anthropic: {
        keys: [
          { id: "chat", value: "sk-ant-chat-0002" },
          { id: "batch", value: "sk-ant-batch-0001", use_for_batch_api: true, aliases: { haiku: "claude-3-5-haiku-20241022" } },
        ],
        network_config: { base_url: upstream.baseUrl },
      },
    },
  });
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

const line = (id: string, text: string, model = "anthropic/haiku") => ({ custom_id: id, method: "POST", url: "/v1/chat/completions", body: { model, max_tokens: 64, messages: [{ role: "system", content: "be brief" }, { role: "user", content: text }] } });
type BatchBody = { id: string; status: string; request_counts: { total: number; completed: number; failed: number } };

describe("Anthropic message batches through /v1/batches", () => {
  let batchId: string;

  test("requests sent inline become a message batch: each translated to Anthropic's format, aliases applied", async () => {
    const response = await postJson(`${gw.url}/v1/batches`, { provider: "anthropic", endpoint: "/v1/chat/completions", completion_window: "24h", requests: [line("a", "hello batch"), line("b", "please fail")] });
    expect(response.status).toBe(200);
    const batch = (await response.json()) as BatchBody;
    batchId = batch.id;
    expect(batch).toMatchObject({ object: "batch", status: "in_progress", request_counts: { total: 2, completed: 0, failed: 0 } });
    const sent = upstream.requests.findLast((request) => request.path === "/v1/messages/batches")!;
    expect(sent.headers.get("x-api-key")).toBe("sk-ant-batch-0001");
    expect(sent.json!.requests).toEqual([
      { custom_id: "a", params: expect.objectContaining({ model: "claude-3-5-haiku-20241022", max_tokens: 64, system: "be brief", messages: [{ role: "user", content: "hello batch" }] }) },
      { custom_id: "b", params: expect.objectContaining({ model: "claude-3-5-haiku-20241022", messages: [{ role: "user", content: "please fail" }] }) },
    ]);
  });

  test("retrieve and list show it in OpenAI's shape, by the gateway id", async () => {
    const found = await client.batches.retrieve(batchId);
    expect(found.status).toBe("in_progress");
    const listed = await client.batches.list({}, { headers: { "x-gw-provider": "anthropic" } });
    expect(listed.data.map((batch) => batch.id)).toContain(batchId);
  });

  test("results wait for the end, then come back as OpenAI batch output lines", async () => {
    await expectGatewayError(await fetch(`${gw.url}/v1/batches/${batchId}/results`), 409);
    upstream.endBatch([...upstream.batches.keys()][0]!);
    const done = (await client.batches.retrieve(batchId)) as unknown as BatchBody;
    expect(done).toMatchObject({ status: "completed", request_counts: { total: 2, completed: 1, failed: 1 } });
    const lines = (await (await fetch(`${gw.url}/v1/batches/${batchId}/results`)).text()).trim().split("\n").map((text) => JSON.parse(text));
    expect(lines[0]).toMatchObject({ custom_id: "a", error: null, response: { status_code: 200, body: { object: "chat.completion", choices: [{ message: { role: "assistant", content: "echo: hello batch" }, finish_reason: "stop" }] } } });
    expect(lines[1]).toMatchObject({ custom_id: "b", response: null, error: { code: "invalid_request_error", message: "refused: please fail" } });
  });

  test("cancel turns the batch to cancelling", async () => {
    const response = await postJson(`${gw.url}/v1/batches`, { provider: "anthropic", requests: [line("c", "cancel me")] });
    const { id } = (await response.json()) as BatchBody;
    expect((await client.batches.cancel(id)).status).toBe("cancelling");
  });

  test("an input file cannot feed an Anthropic batch: a 400 saying to send requests", async () => {
    const body = await expectGatewayError(await postJson(`${gw.url}/v1/batches`, { provider: "anthropic", input_file_id: "file_123", endpoint: "/v1/chat/completions", completion_window: "24h" }), 400, { param: "requests" });
    expect(body.error.message).toContain("inline");
  });
});

describe("Anthropic files through /v1/files", () => {
  test("upload, list, retrieve and delete with the files beta; content of an uploaded file is the provider's refusal", async () => {
    const file = await client.files.create({ file: await toFile(Buffer.from("%PDF-1.4 tiny"), "brief.pdf"), purpose: "user_data" }, { headers: { "x-gw-provider": "anthropic" } });
    expect(file).toMatchObject({ object: "file", filename: "brief.pdf", bytes: 13, purpose: "user_data" });
    const upload = upstream.requests.findLast((request) => request.path === "/v1/files" && request.method === "POST")!;
    expect(upload.headers.get("anthropic-beta")).toContain("files-api-2025-04-14");
    expect((await client.files.list({}, { headers: { "x-gw-provider": "anthropic" } })).data.map((listed) => listed.id)).toContain(file.id);
    expect((await client.files.retrieve(file.id)).filename).toBe("brief.pdf");
    await expectGatewayError(await fetch(`${gw.url}/v1/files/${file.id}/content`), 400, { errorType: "provider_rejected_request" });
    expect(await client.files.delete(file.id)).toMatchObject({ id: file.id, deleted: true });
    expect(upstream.files.size).toBe(0);
  });
});
