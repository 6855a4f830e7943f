import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { finishedJob, type JobBody, pollJob, submitJob, submittedJob } from "../support/async-jobs";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { mockEmbedding, type MockOpenAI, type RecordedRequest, startMockOpenAI } from "../support/mock-openai";
import { TestClock } from "../support/test-clock";

let upstream: MockOpenAI;
let gw: TestGateway;
const clock = new TestClock();

/** Two providers on one mock upstream, told apart by their key. */
beforeAll(async () => {
  upstream = startMockOpenAI();
  const provider = (key: string) => ({ keys: [{ id: key, value: `secret-${key}` }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } });
  gw = await startGateway({ providers: { openai: provider("primary"), mistral: provider("fallback") } }, { runtime: { actorClock: clock } });
});
afterEach(() => {
  upstream.faults.length = 0;
  upstream.onRequest = undefined;
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

const chat = (content: string, extra: Record<string, unknown> = {}) => ({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }], ...extra });
const keyOf = (request: RecordedRequest) => request.headers.get("authorization")?.replace("Bearer secret-", "");

/** Holds the upstream's next request until the test lets it go. */
function holdUpstream() {
  const arrived = Promise.withResolvers<RecordedRequest>();
  const release = Promise.withResolvers<void>();
  upstream.onRequest = async (request) => {
    upstream.onRequest = undefined;
    arrived.resolve(request);
    await release.promise;
  };
  return { arrived: arrived.promise, release: () => release.resolve() };
}

describe("POST /v1/async/{kind} answers at once; GET polls", () => {
  test("202 with {id, status, created_at, expires_at} while the upstream still works; GET 202 until done, then 200 with the result", async () => {
    const held = holdUpstream();
    const submitted = await submitJob(gw, "chat/completions", chat("take your time"));
    expect(submitted.status).toBe(202);
    const job = (await submitted.json()) as JobBody;
    expect(Object.keys(job)).toEqual(expect.arrayContaining(["id", "status", "created_at", "expires_at"]));
    expect(job.status).toBe("pending");
    expect(Date.parse(job.expires_at) - Date.parse(job.created_at)).toBe(3600_000);

    expect((await held.arrived).path).toBe("/v1/chat/completions");
    const running = await pollJob(gw, "chat/completions", job.id);
    expect(running.status).toBe(202);
    expect(((await running.json()) as JobBody).status).toBe("processing");

    held.release();
    const done = await finishedJob(gw, "chat/completions", job.id);
    expect(done).toMatchObject({ id: job.id, status: "completed", status_code: 200, request_type: "chat.completion" });
    expect((done.result as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe("echo: take your time");
    expect(Date.parse(done.expires_at)).toBe(Date.parse(done.completed_at!) + 3600_000);
  });

  test("the result is what the synchronous twin answers", async () => {
    const body = { model: "openai/text-embedding-3-small", input: ["alpha", "beta"], encoding_format: "float" };
    const direct = (await (await fetch(`${gw.url}/v1/embeddings`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })).json()) as { data: unknown };
    const job = await submittedJob(gw, "embeddings", body);
    const done = await finishedJob(gw, "embeddings", job.id);
    expect(done.request_type).toBe("embedding");
    expect(done.result!.data).toEqual(direct.data);
    expect((done.result!.data as Array<{ embedding: number[] }>)[0]!.embedding).toEqual(mockEmbedding("alpha"));
  });

  test("it runs through the same pipeline: a failing primary falls back as the synchronous call does", async () => {
    upstream.faults.push({ kind: "status", status: 500 });
    const start = upstream.requests.length;
    const job = await submittedJob(gw, "chat/completions", chat("rescue me", { fallbacks: ["mistral/mistral-small"] }));
    const done = await finishedJob(gw, "chat/completions", job.id);
    expect(done.status).toBe("completed");
    expect(done.result!.model).toBe("mistral-small");
    expect(upstream.requests.slice(start).map(keyOf)).toEqual(["primary", "fallback"]);
  });

  test("an upstream error makes a failed job: 200 with the error and its status_code", async () => {
    upstream.faults.push({ kind: "status", status: 400, message: "that prompt is not allowed" });
    const job = await submittedJob(gw, "completions", { model: "openai/gpt-3.5-turbo-instruct", prompt: "nope" });
    const done = await finishedJob(gw, "completions", job.id);
    expect(done.status).toBe("failed");
    expect(done.status_code).toBe(400);
    expect(done.result).toBeUndefined();
    expect(done.error!.error.message).toContain("that prompt is not allowed");
  });

  test("a request the synchronous route refuses fails the same way", async () => {
    const body = { model: "nowhere/some-model", messages: [{ role: "user", content: "hi" }] };
    const job = await submittedJob(gw, "chat/completions", body);
    const done = await finishedJob(gw, "chat/completions", job.id);
    const direct = await fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    expect(done.status).toBe("failed");
    expect(done.status_code).toBe(direct.status);
    expect(done.error!.extra_fields!.error_type).toBe(((await direct.json()) as { extra_fields: { error_type: string } }).extra_fields.error_type);
  });
});

describe("what a submission may not do", () => {
  test("stream: true is a 400 naming `stream`", async () => {
    await expectGatewayError(await submitJob(gw, "chat/completions", chat("stream it", { stream: true })), 400, { param: "stream", errorType: "caller_streaming_unsupported" });
  });

  test("a body that is not a JSON object is a 400", async () => {
    const response = await fetch(`${gw.url}/v1/async/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: "[1, 2" });
    await expectGatewayError(response, 400, { param: "body" });
    await expectGatewayError(await submitJob(gw, "embeddings", [1, 2]), 400, { param: "body" });
  });

  test("a result ttl that is not a whole number of seconds is a 400", async () => {
    for (const ttl of ["soon", "-5", "1.5"]) {
      await expectGatewayError(await submitJob(gw, "chat/completions", chat("ttl"), { "x-gw-async-job-result-ttl": ttl }), 400, { param: "x-gw-async-job-result-ttl" });
    }
  });

  test("naming a webhook endpoint that does not exist is a 400", async () => {
    await expectGatewayError(await submitJob(gw, "chat/completions", chat("hook"), { "x-gw-async-webhook": "nobody" }), 400, { param: "x-gw-async-webhook" });
  });
});

describe("404 when unknown, expired or owned by another virtual key", () => {
  test("an unknown id, or a job polled under another kind, is a 404", async () => {
    await expectGatewayError(await pollJob(gw, "chat/completions", "no-such-job"), 404);
    const job = await submittedJob(gw, "chat/completions", chat("mine"));
    await finishedJob(gw, "chat/completions", job.id);
    await expectGatewayError(await pollJob(gw, "embeddings", job.id), 404);
  });

  test("only the virtual key that submitted the job sees it, wherever the key is presented", async () => {
    const [aliceKey, bobKey] = await Promise.all(["alice", "bob"].map(async (name) => ((await (await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name } })).json()) as { virtual_key: { value: string } }).virtual_key.value));
    const alice = { "x-gw-vk": aliceKey! };
    const job = await submittedJob(gw, "chat/completions", chat("private"), alice);
    await finishedJob(gw, "chat/completions", job.id, alice);
    expect((await pollJob(gw, "chat/completions", job.id, { authorization: `Bearer ${aliceKey}` })).status).toBe(200);
    expect((await pollJob(gw, "chat/completions", job.id, { "x-api-key": aliceKey! })).status).toBe(200);
    await expectGatewayError(await pollJob(gw, "chat/completions", job.id, { "x-gw-vk": bobKey! }), 404);
    await expectGatewayError(await pollJob(gw, "chat/completions", job.id), 404);
  });

  test("results expire after x-gw-async-job-result-ttl seconds", async () => {
    const job = await submittedJob(gw, "chat/completions", chat("short-lived"), { "x-gw-async-job-result-ttl": "120" });
    const done = await finishedJob(gw, "chat/completions", job.id);
    expect(Date.parse(done.expires_at) - Date.parse(done.completed_at!)).toBe(120_000);
    await clock.timerSet(120_000);
    clock.increment(119_000);
    expect((await pollJob(gw, "chat/completions", job.id)).status).toBe(200);
    clock.increment(1_000);
    await expectGatewayError(await pollJob(gw, "chat/completions", job.id), 404);
  });
});

describe("x-gw-async on /v1", () => {
  test("the OpenAI SDK submits a chat with x-gw-async: true (202 and the job) and collects the completion with x-gw-async-id", async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const request = { model: "openai/gpt-4o-mini", messages: [{ role: "user" as const, content: "on /v1, later" }] };
    const held = holdUpstream();
    const submitted = await client.chat.completions.create(request, { headers: { "x-gw-async": "true" } }).withResponse();
    expect(submitted.response.status).toBe(202);
    const job = submitted.data as unknown as JobBody;
    expect(job).toMatchObject({ status: "pending", request_type: "chat.completion" });
    expect(submitted.response.headers.get("x-gw-async-id")).toBe(job.id);
    await held.arrived;
    expect(((await client.chat.completions.create(request, { headers: { "x-gw-async-id": job.id } })) as unknown as JobBody).status).toBe("processing");
    held.release();
    let answer: OpenAI.ChatCompletion | JobBody = job;
    while ("status" in answer) {
      await Bun.sleep(5);
      answer = (await client.chat.completions.create(request, { headers: { "x-gw-async-id": job.id } })) as OpenAI.ChatCompletion | JobBody;
    }
    expect(answer.choices[0]!.message.content).toBe("echo: on /v1, later");
    // The same job is on /v1/async too.
    expect((await finishedJob(gw, "chat/completions", job.id)).status).toBe("completed");
  });

  test("embeddings too; files and batches cannot be, as on the provider mounts", async () => {
    const response = await fetch(`${gw.url}/v1/embeddings`, { method: "POST", headers: { "content-type": "application/json", "x-gw-async": "true" }, body: JSON.stringify({ model: "openai/text-embedding-3-small", input: "later" }) });
    expect(response.status).toBe(202);
    const job = (await response.json()) as JobBody;
    expect((await finishedJob(gw, "embeddings", job.id)).result!.data).toHaveLength(1);
    for (const path of ["/v1/files", "/v1/batches"]) {
      await expectGatewayError(await fetch(`${gw.url}${path}`, { method: "POST", headers: { "content-type": "application/json", "x-gw-async": "true" }, body: "{}" }), 400, { param: "x-gw-async" });
    }
  });
});

describe("x-gw-async on the provider mounts", () => {
  test("the Anthropic SDK submits with x-gw-async: true and collects the message with x-gw-async-id", async () => {
    const client = new Anthropic({ baseURL: `${gw.url}/anthropic`, apiKey: "unused", maxRetries: 0 });
    const request = { model: "openai/gpt-4o-mini", max_tokens: 64, messages: [{ role: "user" as const, content: "later please" }] };
    const held = holdUpstream();
    const submitted = (await client.messages.create(request, { headers: { "x-gw-async": "true" } })) as unknown as JobBody;
    expect(submitted).toMatchObject({ status: "pending", request_type: "chat.completion" });
    await held.arrived;
    const pending = (await client.messages.create(request, { headers: { "x-gw-async-id": submitted.id } })) as unknown as JobBody;
    expect(pending.status).toBe("processing");
    held.release();
    let message: Anthropic.Message | JobBody = pending;
    while ("status" in message) {
      await Bun.sleep(5);
      message = (await client.messages.create(request, { headers: { "x-gw-async-id": submitted.id } })) as Anthropic.Message | JobBody;
    }
    expect(message.type).toBe("message");
    expect(message.content).toMatchObject([{ type: "text", text: "echo: later please" }]);
  });

  test("batches, files and containers cannot be submitted asynchronously, on any mount", async () => {
    for (const path of ["/openai/v1/files", "/openai/v1/batches", "/openai/v1/containers", "/anthropic/v1/messages/batches", "/litellm/anthropic/v1/files"]) {
      const response = await fetch(`${gw.url}${path}`, { method: "POST", headers: { "content-type": "application/json", "x-gw-async": "true" }, body: "{}" });
      await expectGatewayError(response, 400, { param: "x-gw-async" });
    }
  });

  test("a streaming endpoint cannot be submitted asynchronously", async () => {
    const response = await fetch(`${gw.url}/genai/v1beta/models/gemini-2.5-flash:streamGenerateContent`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-gw-async": "true" },
      body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] }),
    });
    await expectGatewayError(response, 400, { errorType: "caller_streaming_unsupported" });
  });
});
