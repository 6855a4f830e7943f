import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { finishedJob, submittedJob } from "../support/async-jobs";
import { postJson } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockCohere, startMockCohere } from "../support/mock-cohere";
import { type MockOpenAIPlatform, spokenAudio, startMockOpenAIPlatform } from "../support/mock-openai-platform";

let platform: MockOpenAIPlatform;
let cohere: MockCohere;
let gw: TestGateway;

const KEY = "sk-platform-0001";

beforeAll(async () => {
  platform = startMockOpenAIPlatform();
  platform.keys.set(KEY, []);
  cohere = startMockCohere("cohere-rerank-key");
  gw = await startGateway({
    providers: {
      openai: { keys: [{ id: "openai", value: KEY, aliases: { painter: "gpt-image-1", listener: "whisper-1", counter: "gpt-4.1" } }], network_config: { base_url: platform.baseUrl } },
      vllm: { keys: [{ id: "vllm", value: KEY, vllm_key_config: { url: platform.url }, aliases: { ranker: "BAAI/bge-reranker-v2-m3" } }] },
      cohere: { keys: [{ id: "cohere", value: "cohere-rerank-key" }], network_config: { base_url: cohere.baseUrl } },
    },
  });
});
afterAll(async () => {
  await gw.close();
  platform.stop();
  cohere.stop();
});

const documents = ["the cat sat", "a dog barked", "cats purr"];
type RerankReply = { results: Array<{ index: number; relevance_score: number }> };
const lastPlatform = (path: string) => platform.requests.findLast((request) => request.path === path)!;

describe("POST /v1/rerank", () => {
  test("to Cohere: the same shape goes to its /rerank with the model rewritten", async () => {
    const response = await postJson(`${gw.url}/v1/rerank`, { model: "cohere/rerank-v3.5", query: "cat", documents, top_n: 2 });
    const reply = (await response.json()) as RerankReply;
    expect(reply.results.map((result) => result.index)).toEqual([0, 2]);
    const sent = cohere.requests.at(-1)!;
    expect(sent).toMatchObject({ path: "/v2/rerank", body: { model: "rerank-v3.5", query: "cat", documents, top_n: 2 } });
  });

  test("to a vLLM server: its /v1/rerank, the alias naming the served model", async () => {
    const reply = (await (await postJson(`${gw.url}/v1/rerank`, { model: "vllm/ranker", query: "cat", documents })).json()) as RerankReply;
    expect(reply.results[0]).toMatchObject({ index: 0, relevance_score: 0.9 });
    expect(lastPlatform("/v1/rerank").json).toMatchObject({ model: "BAAI/bge-reranker-v2-m3", query: "cat" });
  });
});

describe("aliases apply on every route", () => {
  test("images, transcriptions and input token counts send the aliased model", async () => {
    await postJson(`${gw.url}/v1/images/generations`, { model: "openai/painter", prompt: "x" });
    expect(lastPlatform("/v1/images/generations").json!.model).toBe("gpt-image-1");
    const form = new FormData();
    form.append("model", "openai/listener");
    form.append("file", new File([new Uint8Array(8)], "a.wav"));
    await fetch(`${gw.url}/v1/audio/transcriptions`, { method: "POST", body: form });
    expect(lastPlatform("/v1/audio/transcriptions").form!.get("model")).toBe("whisper-1");
    await postJson(`${gw.url}/v1/responses/input_tokens`, { model: "openai/counter", input: "hi" });
    expect(lastPlatform("/v1/responses/input_tokens").json!.model).toBe("gpt-4.1");
  });
});

describe("the async twins of the new routes run them", () => {
  test("audio/speech: the job's result is the audio, base64 with its content type", async () => {
    const job = await submittedJob(gw, "audio/speech", { model: "openai/gpt-4o-mini-tts", voice: "alloy", input: "later please" });
    const done = await finishedJob(gw, "audio/speech", job.id);
    expect(done).toMatchObject({ status: "completed", status_code: 200, request_type: "audio.speech" });
    const result = done.result as { content_type: string; data_base64: string };
    expect(result.content_type).toBe("audio/mpeg");
    expect(new Uint8Array(Buffer.from(result.data_base64, "base64"))).toEqual(spokenAudio("later please"));
  });

  test("audio/transcriptions: a multipart submission is replayed whole", async () => {
    const form = new FormData();
    form.append("model", "openai/gpt-4o-transcribe");
    form.append("file", new File([new Uint8Array(900)], "voicemail.ogg"));
    const submitted = await fetch(`${gw.url}/v1/async/audio/transcriptions`, { method: "POST", body: form });
    expect(submitted.status).toBe(202);
    const done = await finishedJob(gw, "audio/transcriptions", ((await submitted.json()) as { id: string }).id);
    expect(done.result).toMatchObject({ text: "transcribed 900 bytes of voicemail.ogg with gpt-4o-transcribe" });
  });

  test("images/generations", async () => {
    const job = await submittedJob(gw, "images/generations", { model: "openai/gpt-image-1", prompt: "a quiet harbor" });
    const done = await finishedJob(gw, "images/generations", job.id);
    const image = (done.result!.data as Array<{ b64_json: string }>)[0]!;
    expect(Buffer.from(image.b64_json, "base64").toString()).toBe("png:a quiet harbor:0");
  });

  test("images/edits: a multipart submission with its image is replayed whole", async () => {
    const form = new FormData();
    form.append("model", "openai/gpt-image-1");
    form.append("prompt", "add a boat");
    form.append("image", new File([new Uint8Array(12)], "harbor.png", { type: "image/png" }));
    const submitted = await fetch(`${gw.url}/v1/async/images/edits`, { method: "POST", body: form });
    expect(submitted.status).toBe(202);
    const done = await finishedJob(gw, "images/edits", ((await submitted.json()) as { id: string }).id);
    const image = (done.result!.data as Array<{ b64_json: string }>)[0]!;
    expect(Buffer.from(image.b64_json, "base64").toString()).toBe("edited:harbor.png:add a boat");
  });

  test("moderations", async () => {
    const job = await submittedJob(gw, "moderations", { model: "openai/omni-moderation-latest", input: "hate mail" });
    const done = await finishedJob(gw, "moderations", job.id);
    expect(done).toMatchObject({ status: "completed", request_type: "moderation", result: { results: [{ flagged: true }] } });
  });

  test("rerank", async () => {
    const job = await submittedJob(gw, "rerank", { model: "cohere/rerank-v3.5", query: "dog", documents });
    const done = await finishedJob(gw, "rerank", job.id);
    expect(done.request_type).toBe("rerank");
    expect((done.result as RerankReply).results[0]!.index).toBe(1);
  });
});
