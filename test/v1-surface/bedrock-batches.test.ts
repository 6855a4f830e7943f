import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI, { toFile } from "openai";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockBedrockBatches, startMockBedrockBatches } from "../support/mock-bedrock-batches";

const AUTH = { accessKeyId: "AKIABATCHMOCK", secretAccessKey: "batch-secret-key", region: "us-east-1" };
const ROLE = "arn:aws:iam::123456789012:role/BedrockBatch";
const MODEL = "anthropic.claude-3-haiku-20240307-v1:0";

let upstream: MockBedrockBatches;
let gw: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  upstream = startMockBedrockBatches(AUTH);
  gw = await startGateway({
    providers: {
      bedrock: {
        keys: [
          {
            id: "iam",
            use_for_batch_api: true,
            aliases: { haiku: MODEL },
            bedrock_key_config: { access_key: AUTH.accessKeyId, secret_key: AUTH.secretAccessKey, region: AUTH.region, arn: ROLE, batch_s3_config: { buckets: [{ bucket_name: "scratch", prefix: "x" }, { bucket_name: "batch-in", prefix: "jobs", is_default: true }] } },
          },
        ],
        network_config: { base_url: upstream.url },
      },
      "bedrock-apikey": { keys: [{ id: "api-key-only", value: "ABSK-key", use_for_batch_api: true, bedrock_key_config: { region: "us-east-1" } }], network_config: { base_url: upstream.url }, custom_provider_config: { base_provider_type: "bedrock" } },
    },
  });
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0, defaultHeaders: { "x-gw-provider": "bedrock" } });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

const line = (id: string, text: string) => ({ custom_id: id, method: "POST", url: "/v1/chat/completions", body: { model: "bedrock/haiku", max_tokens: 50, messages: [{ role: "user", content: text }] } });
const jsonl = [line("r1", "alpha"), line("r2", "beta")].map((entry) => JSON.stringify(entry)).join("\n");

describe("Bedrock batch inference: files in the key's S3 bucket, batches as model invocation jobs", () => {
  let fileId: string;
  let batchId: string;

  test("upload converts lines to Bedrock records and puts them in the default bucket, signed for S3", async () => {
    const file = await client.files.create({ file: await toFile(Buffer.from(jsonl), "input.jsonl"), purpose: "batch" });
    fileId = file.id;
    expect(file).toMatchObject({ object: "file", filename: "input.jsonl", model: MODEL });
    const put = upstream.requests.find((request) => request.method === "PUT")!;
    expect(put).toMatchObject({ service: "s3", path: expect.stringMatching(/^\/batch-in\/jobs\/anthropic\.claude-3-haiku-20240307-v1%3A0\/[0-9a-f-]{36}\/input\.jsonl$/) });
    const [key, object] = [...upstream.objects][0]!;
    const records = new TextDecoder().decode(object.bytes).trim().split("\n").map((text) => JSON.parse(text));
    expect(records[0]).toEqual({ recordId: "r1", modelInput: expect.objectContaining({ anthropic_version: "bedrock-2023-05-31", max_tokens: 50, messages: [{ role: "user", content: "alpha" }] }) });
    expect(records[0].modelInput.model).toBeUndefined();
    expect(key.startsWith("batch-in/jobs/")).toBe(true);
  });

  test("retrieve (HEAD), list (ListObjectsV2) and content (GET) read the object", async () => {
    expect(await client.files.retrieve(fileId)).toMatchObject({ id: fileId, filename: "input.jsonl", bytes: [...upstream.objects.values()][0]!.bytes.byteLength });
    expect((await client.files.list()).data.map((file) => file.id)).toContain(fileId);
    expect(await (await client.files.content(fileId)).text()).toContain('"recordId":"r1"');
  });

  test("a batch is a model invocation job with the key's role, reading the file, writing beside it", async () => {
    const batch = await client.batches.create({ input_file_id: fileId, endpoint: "/v1/chat/completions", completion_window: "24h" });
    batchId = batch.id;
    expect(batch).toMatchObject({ object: "batch", status: "validating", input_file_id: fileId, model: MODEL });
    const created = upstream.requests.find((request) => request.path === "/model-invocation-job")!;
    expect(created.service).toBe("bedrock");
    expect(created.json).toMatchObject({ roleArn: ROLE, modelId: MODEL, inputDataConfig: { s3InputDataConfig: { s3Uri: `s3://${[...upstream.objects.keys()][0]}` } }, outputDataConfig: { s3OutputDataConfig: { s3Uri: "s3://batch-in/jobs/output/" } } });
  });

  test("results are read from the job's output object and translated to OpenAI's lines", async () => {
    await expectGatewayError(await fetch(`${gw.url}/v1/batches/${batchId}/results`), 409);
    upstream.complete([...upstream.jobs.keys()][0]!);
    expect((await client.batches.retrieve(batchId)).status).toBe("completed");
    const lines = (await (await fetch(`${gw.url}/v1/batches/${batchId}/results`)).text()).trim().split("\n").map((text) => JSON.parse(text));
    expect(lines.map((entry) => [entry.custom_id, entry.response.body.choices[0].message.content])).toEqual([
      ["r1", "echo: alpha"],
      ["r2", "echo: beta"],
    ]);
  });

  test("cancel stops the job; list shows the jobs; delete removes the object", async () => {
    const second = await client.batches.create({ input_file_id: fileId, endpoint: "/v1/chat/completions", completion_window: "24h" });
    expect((await client.batches.cancel(second.id)).status).toBe("cancelling");
    expect((await client.batches.list()).data.map((batch) => batch.id)).toEqual(expect.arrayContaining([batchId, second.id]));
    const before = upstream.objects.size;
    expect(await client.files.delete(fileId)).toMatchObject({ deleted: true });
    expect(upstream.objects.size).toBe(before - 1);
  });

  test("a key without IAM credentials cannot reach S3: a 400 naming access_key", async () => {
    await expectGatewayError(await fetch(`${gw.url}/v1/files?provider=bedrock-apikey`), 400, { param: "bedrock_key_config.access_key" });
  });
});
