import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createClient } from "@libsql/client";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { finishedJob, type JobBody, submitJob } from "../support/async-jobs";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

// With enforce_auth_on_inference on, an async submission is checked as the synchronous call
// would be, before anything is stored: a caller who may not run the job writes nothing.

let upstream: MockOpenAI;
let gw: TestGateway;
let virtualKey: string;

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({ enforce_auth_on_inference: true, providers: { openai: { keys: [{ id: "k", value: "sk-k" }], network_config: { base_url: upstream.baseUrl } } } });
  virtualKey = ((await (await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name: "caller" } })).json()) as { virtual_key: { value: string } }).virtual_key.value;
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

/** Rows the database holds for async jobs, live or finished. */
async function storedJobs(): Promise<number> {
  const client = createClient({ url: gw.databaseUrl });
  try {
    const { rows } = await client.execute("SELECT count(*) AS n FROM actor_snapshots WHERE kind = 'async-job'");
    return Number(rows[0]!.n);
  } finally {
    client.close();
  }
}

const chat = { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "anonymous" }] };
const credentials = { none: {}, unknown: { "x-gw-vk": "sk-gw-not-a-key" } } as const;

describe("an async submission without a valid virtual key is a 401 and stores nothing", () => {
  for (const [name, headers] of Object.entries(credentials)) {
    test(`POST /v1/async/chat/completions, key ${name}`, async () => {
      const before = { jobs: await storedJobs(), upstream: upstream.requests.length };
      await expectGatewayError(await submitJob(gw, "chat/completions", chat, headers), 401);
      expect(await storedJobs()).toBe(before.jobs);
      expect(upstream.requests.length).toBe(before.upstream);
    });
  }

  test("x-gw-async on /v1 and on the provider mounts, through the SDKs, is refused the same way", async () => {
    const before = await storedJobs();
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "sk-gw-not-a-key", maxRetries: 0 });
    const fromOpenAI = await openai.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "x" }] }, { headers: { "x-gw-async": "true" } }).catch((error: unknown) => error);
    expect(fromOpenAI).toBeInstanceOf(OpenAI.AuthenticationError);
    const anthropic = new Anthropic({ baseURL: `${gw.url}/anthropic`, apiKey: "unused", maxRetries: 0 });
    const fromAnthropic = await anthropic.messages.create({ model: "openai/gpt-4o-mini", max_tokens: 10, messages: [{ role: "user", content: "x" }] }, { headers: { "x-gw-async": "true" } }).catch((error: unknown) => error);
    expect(fromAnthropic).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(await storedJobs()).toBe(before);
  });

  test("the key is checked before the body is read: a large anonymous body is refused and not kept", async () => {
    const before = await storedJobs();
    const large = { ...chat, messages: [{ role: "user", content: "x".repeat(5 * 1024 * 1024) }] };
    await expectGatewayError(await submitJob(gw, "chat/completions", large), 401);
    expect(await storedJobs()).toBe(before);
  });

  test("a valid key submits as before", async () => {
    const response = await submitJob(gw, "chat/completions", chat, { "x-gw-vk": virtualKey });
    expect(response.status).toBe(202);
    const job = (await response.json()) as JobBody;
    expect((await finishedJob(gw, "chat/completions", job.id, { "x-gw-vk": virtualKey })).status).toBe("completed");
  });
});
