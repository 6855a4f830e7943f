import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI, { toFile } from "openai";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAIPlatform, startMockOpenAIPlatform } from "../support/mock-openai-platform";

let upstream: MockOpenAIPlatform;
let gw: TestGateway;
let client: OpenAI;

const BATCH_KEY = "sk-batch-key-0001";
const INTERACTIVE_KEY = "sk-interactive-0002";
const lines = [
  { custom_id: "q1", method: "POST", url: "/v1/chat/completions", body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "first question" }] } },
  { custom_id: "q2", method: "POST", url: "/v1/chat/completions", body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "second question" }] } },
];
const jsonl = `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`;

beforeAll(async () => {
  upstream = startMockOpenAIPlatform();
  upstream.keys.set(BATCH_KEY, []);
  upstream.keys.set(INTERACTIVE_KEY, []);
  gw = await startGateway({
    providers: {
      openai: {
        keys: [
          { id: "interactive", value: INTERACTIVE_KEY },
          { id: "batch", value: BATCH_KEY, use_for_batch_api: true },
        ],
        network_config: { base_url: upstream.baseUrl },
      },
      mistral: { keys: [{ id: "mistral", value: "m", use_for_batch_api: true }], network_config: { base_url: upstream.baseUrl } },
      "openai-eu": { keys: [{ id: "eu", value: INTERACTIVE_KEY }], network_config: { base_url: upstream.baseUrl }, custom_provider_config: { base_provider_type: "openai" } },
      groq: { keys: [{ id: "groq", value: "g", use_for_batch_api: true }], network_config: { base_url: upstream.baseUrl } },
    },
  });
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0, defaultHeaders: { "x-gw-provider": "openai" } });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

const upstreamCalls = (path: RegExp) => upstream.requests.filter((request) => path.test(request.path));

describe("/v1/files through the gateway with the OpenAI SDK", () => {
  let fileId: string;

  test("upload: multipart reaches OpenAI with the use_for_batch_api key; the id the client gets is the gateway's", async () => {
    const file = await client.files.create({ file: await toFile(Buffer.from(jsonl), "questions.jsonl"), purpose: "batch" });
    fileId = file.id;
    expect(file).toMatchObject({ object: "file", filename: "questions.jsonl", purpose: "batch", bytes: jsonl.length });
    expect(file.id).toStartWith("file-gw");
    const sent = upstreamCalls(/^\/v1\/files$/).at(-1)!;
    expect(sent.headers.get("authorization")).toBe(`Bearer ${BATCH_KEY}`);
    expect(sent.headers.get("content-type")).toStartWith("multipart/form-data");
    const stored = [...upstream.store.files.values()].at(-1)!;
    expect(new TextDecoder().decode(stored.content)).toBe(jsonl);
    expect(file.id).not.toBe(stored.id);
  });

  test("list, retrieve and content find it by the gateway id", async () => {
    const page = await client.files.list({ purpose: "batch" });
    expect(page.data.map((file) => file.id)).toContain(fileId);
    expect((await client.files.retrieve(fileId)).filename).toBe("questions.jsonl");
    expect(await (await client.files.content(fileId)).text()).toBe(jsonl);
    const stored = [...upstream.store.files.values()].at(-1)!;
    expect(upstreamCalls(/\/content$/).at(-1)!.path).toBe(`/v1/files/${stored.id}/content`);
  });

  test("an id the gateway did not hand out is the provider's own", async () => {
    const stored = [...upstream.store.files.values()].at(-1)!;
    expect((await client.files.retrieve(stored.id)).filename).toBe("questions.jsonl");
  });

  test("delete removes it upstream", async () => {
    const extra = await client.files.create({ file: await toFile(Buffer.from("{}\n"), "scratch.jsonl"), purpose: "user_data" });
    expect(await client.files.delete(extra.id)).toMatchObject({ id: extra.id, deleted: true });
    expect(upstream.store.files.size).toBe(1);
  });

  describe("/v1/batches", () => {
    let batchId: string;

    test("create runs on the file's key; retrieve follows the batch as it goes", async () => {
      const batch = await client.batches.create({ input_file_id: fileId, endpoint: "/v1/chat/completions", completion_window: "24h", metadata: { team: "search" } });
      batchId = batch.id;
      expect(batch).toMatchObject({ object: "batch", status: "validating", input_file_id: fileId, metadata: { team: "search" } });
      expect(batch.id).toStartWith("batch_gw");
      const sent = upstreamCalls(/^\/v1\/batches$/).at(-1)!;
      expect(sent.json!.input_file_id).toBe([...upstream.store.files.keys()][0]);
      expect(sent.headers.get("authorization")).toBe(`Bearer ${BATCH_KEY}`);
      expect((await client.batches.retrieve(batchId)).status).toBe("validating");
    });

    test("results before the batch finished are a 409", async () => {
      await expectGatewayError(await fetch(`${gw.url}/v1/batches/${batchId}/results`), 409, { errorType: "caller_batch_not_finished" });
    });

    test("once completed: the output file and /results hold one line per request", async () => {
      upstream.store.completeBatch([...upstream.store.batches.keys()][0]!);
      const done = await client.batches.retrieve(batchId);
      expect(done).toMatchObject({ status: "completed", request_counts: { total: 2, completed: 2, failed: 0 } });
      expect(done.output_file_id).toStartWith("file-gw");
      const output = (await (await client.files.content(done.output_file_id!)).text()).trim().split("\n").map((line) => JSON.parse(line));
      expect(output.map((line) => [line.custom_id, line.response.body.choices[0].message.content])).toEqual([
        ["q1", "echo: first question"],
        ["q2", "echo: second question"],
      ]);
      const results = await (await fetch(`${gw.url}/v1/batches/${batchId}/results`)).text();
      expect(results.trim().split("\n").map((line) => JSON.parse(line).custom_id)).toEqual(["q1", "q2"]);
    });

    test("list and cancel", async () => {
      const second = await client.batches.create({ input_file_id: fileId, endpoint: "/v1/chat/completions", completion_window: "24h" });
      expect((await client.batches.cancel(second.id)).status).toBe("cancelling");
      const listed = (await client.batches.list()).data.map((batch) => batch.id);
      expect(listed).toEqual(expect.arrayContaining([batchId, second.id]));
    });
  });
});

describe("routing batch and file calls", () => {
  test("a provider with no key marked use_for_batch_api is a 400", async () => {
    await expectGatewayError(await fetch(`${gw.url}/v1/files?provider=openai-eu`), 400, { errorType: "caller_no_batch_key" });
  });

  test("a provider that runs no batches is a 400", async () => {
    await expectGatewayError(await fetch(`${gw.url}/v1/batches`, { headers: { "x-gw-provider": "groq" } }), 400, { errorType: "caller_unsupported_operation" });
  });

  test("with several batch providers, a call that names none is a 400 naming provider", async () => {
    await expectGatewayError(await fetch(`${gw.url}/v1/batches`), 400, { param: "provider" });
  });

  test("the interactive key is never used for files", () => {
    const fileCalls = upstream.requests.filter((request) => request.path.includes("/files") || request.path.includes("/batches"));
    expect(fileCalls.length).toBeGreaterThan(5);
    expect(fileCalls.every((request) => request.headers.get("authorization") === `Bearer ${BATCH_KEY}`)).toBe(true);
  });
});

describe("a file uploaded through the gateway, named in a later call", () => {
  test("a Responses input_file names it by the gateway's id, and the provider is sent its own", async () => {
    const file = await client.files.create({ file: await toFile(new TextEncoder().encode("revenue rose 4%"), "report.txt"), purpose: "user_data" });
    expect(file.id).toStartWith("file-gw");
    const response = await client.responses.create({
      model: "openai/gpt-4o-mini",
      input: [{ role: "user", content: [{ type: "input_file", file_id: file.id }, { type: "input_text", text: "summarize" }] }],
    });
    expect(response.output_text).toBe("read report.txt: revenue rose 4%");
  });

  test("a call routed to a provider other than the one keeping the file is a 400 naming file_id", async () => {
    const file = await client.files.create({ file: await toFile(new TextEncoder().encode("kept by openai"), "kept.txt"), purpose: "user_data" });
    const response = await fetch(`${gw.url}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "openai-eu/gpt-4o-mini", input: [{ role: "user", content: [{ type: "input_file", file_id: file.id }] }] }),
    });
    const error = await expectGatewayError(response, 400, { param: "file_id" });
    expect(error.error.message).toContain("'openai'");
  });
});

describe("vector stores OpenAI keeps (what file_search searches)", () => {
  test("a store is filled with files uploaded through the gateway, searched, read, updated and emptied", async () => {
    const store = await client.vectorStores.create({ name: "handbook" });
    const handbook = await client.vectorStores.files.uploadAndPoll(store.id, await toFile(new TextEncoder().encode("vacation is 25 days"), "handbook.txt"));
    expect(handbook.status).toBe("completed");
    const policy = await client.files.create({ file: await toFile(new TextEncoder().encode("expenses need a receipt"), "policy.txt"), purpose: "assistants" });
    const batch = await client.vectorStores.fileBatches.createAndPoll(store.id, { file_ids: [policy.id] });
    expect(batch.file_counts.completed).toBe(2);
    expect([`Bearer ${INTERACTIVE_KEY}`, `Bearer ${BATCH_KEY}`]).toContain(upstream.requests.at(-1)!.headers.get("authorization")!);

    const found = await client.vectorStores.search(store.id, { query: "vacation" });
    expect(found.data.map((result) => result.filename)).toEqual(["handbook.txt"]);
    // The gateway's id of a file names it in a path too.
    expect((await client.vectorStores.files.retrieve(policy.id, { vector_store_id: store.id })).status).toBe("completed");
    const content = await client.vectorStores.files.content(handbook.id, { vector_store_id: store.id });
    expect(content.data.map((part) => part.text)).toEqual(["vacation is 25 days"]);
    expect((await client.vectorStores.files.update(handbook.id, { vector_store_id: store.id, attributes: { team: "hr" } })).attributes).toEqual({ team: "hr" });
    expect((await client.vectorStores.update(store.id, { name: "handbook v2" })).name).toBe("handbook v2");

    await client.vectorStores.files.delete(policy.id, { vector_store_id: store.id });
    expect((await client.vectorStores.files.list(store.id)).data.map((file) => file.id)).toEqual([handbook.id]);
    await client.vectorStores.delete(store.id);
    expect(await client.vectorStores.retrieve(store.id).catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
  });
});

describe("uploads in parts and fine-tuning jobs OpenAI keeps", () => {
  test("a file sent in parts is completed into a file, which a fine-tuning job trains on; the job is followed, paused, resumed and cancelled", async () => {
    const lines = new TextEncoder().encode('{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]}\n');
    const upload = await client.uploads.create({ filename: "train.jsonl", purpose: "fine-tune", bytes: lines.byteLength, mime_type: "text/jsonl" });
    const [head, tail] = [lines.slice(0, 20), lines.slice(20)];
    const parts = [await client.uploads.parts.create(upload.id, { data: await toFile(head, "part-1") }), await client.uploads.parts.create(upload.id, { data: await toFile(tail, "part-2") })];
    const completed = await client.uploads.complete(upload.id, { part_ids: parts.map((part) => part.id) });
    expect(completed.status).toBe("completed");
    expect(new TextDecoder().decode(upstream.store.files.get(completed.file!.id)!.content)).toBe(new TextDecoder().decode(lines));

    const job = await client.fineTuning.jobs.create({ model: "gpt-4o-mini-2024-07-18", training_file: completed.file!.id });
    expect(job.status).toBe("queued");
    expect((await client.fineTuning.jobs.list()).data.map((listed) => listed.id)).toContain(job.id);
    expect((await client.fineTuning.jobs.listEvents(job.id)).data[0]!.message).toBe("Job is queued");
    expect((await client.fineTuning.jobs.pause(job.id)).status as string).toBe("paused");
    expect((await client.fineTuning.jobs.resume(job.id)).status).toBe("running");
    expect((await client.fineTuning.jobs.cancel(job.id)).status).toBe("cancelled");
    expect((await client.fineTuning.jobs.retrieve(job.id)).status).toBe("cancelled");
  });

  test("a job trains on a file uploaded through the gateway, named by the gateway's id", async () => {
    const file = await client.files.create({ file: await toFile(new TextEncoder().encode('{"messages":[]}\n'), "train.jsonl"), purpose: "fine-tune" });
    const job = await client.fineTuning.jobs.create({ model: "gpt-4o-mini-2024-07-18", training_file: file.id });
    expect(upstream.store.files.has(job.training_file)).toBe(true);
  });
});
