import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, mockEmbedding, startMockOpenAI } from "../support/mock-openai";

const cosine = (a: number[], b: number[]) => a.reduce((sum, value, index) => sum + value * b[index]!, 0) / (Math.hypot(...a) * Math.hypot(...b));

/**
 * The mock's embedding is a deterministic hash, not a language model, so how similar two texts
 * are is whatever it computes: the test takes the paraphrase it rates closest to the question,
 * sets the threshold just below that similarity, and checks that an unrelated question falls
 * under it.
 */
const QUESTION = "What is the capital of France?";
const PARAPHRASES = ["Which city is France's capital?", "Name the capital city of France.", "Capital of France?", "Tell me the French capital."];
const UNRELATED_QUESTIONS = ["Recommend a jazz album.", "Translate 'hello' into German.", "What time is it in Tokyo?", "Write a haiku about rain."];
const similarityTo = (text: string) => cosine(mockEmbedding(QUESTION), mockEmbedding(text));
const byCloseness = (texts: string[]) => [...texts].sort((a, b) => similarityTo(b) - similarityTo(a));
const PARAPHRASE = byCloseness(PARAPHRASES)[0]!;
const UNRELATED = byCloseness(UNRELATED_QUESTIONS)[0]!;
const THRESHOLD = similarityTo(PARAPHRASE) - 0.01;

let upstream: MockOpenAI;
let gw: TestGateway;

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({
    providers: { openai: { keys: [{ id: "k1", value: "sk-test", models: ["*"] }], network_config: { base_url: upstream.baseUrl } } },
    plugins: [{ name: "response_cache", config: { semantic: { embedding_model: "openai/text-embedding-3-small", threshold: THRESHOLD } } }],
  });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

const calls = (path: string) => upstream.requests.filter((request) => request.path === path);

const ask = (content: string, extra: Partial<OpenAI.ChatCompletionCreateParamsNonStreaming> = {}, key = "semantic") =>
  new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0, defaultHeaders: { "x-gw-cache-key": key } }).chat.completions
    .create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }], ...extra })
    .withResponse();

describe("semantic cache on top of the exact one", () => {
  test("the deterministic embedding puts every unrelated question under the threshold", () => {
    expect(THRESHOLD).toBeGreaterThan(0);
    expect(similarityTo(UNRELATED)).toBeLessThan(THRESHOLD - 0.01);
  });

  test("a request whose conversation is similar enough is answered with the cached response", async () => {
    const original = await ask(QUESTION);
    expect(calls("/v1/embeddings").at(-1)!.body).toMatchObject({ model: "text-embedding-3-small", input: QUESTION });
    const chatsBefore = calls("/v1/chat/completions").length;
    const similar = await ask(PARAPHRASE);
    expect(calls("/v1/chat/completions").length).toBe(chatsBefore);
    expect(similar.response.headers.get("x-gw-cache-hit")).toBe("semantic");
    expect(Number(similar.response.headers.get("x-gw-cache-similarity"))).toBeCloseTo(similarityTo(PARAPHRASE), 3);
    expect(similar.data.choices[0]!.message.content).toBe(`echo: ${QUESTION}`);
    expect(similar.data).toEqual(original.data);
  });

  test("the exact match wins over the semantic one", async () => {
    const again = await ask(QUESTION);
    expect(again.response.headers.get("x-gw-cache-hit")).toBe("direct");
  });

  test("a conversation below the threshold goes upstream", async () => {
    const chatsBefore = calls("/v1/chat/completions").length;
    const unrelated = await ask(UNRELATED);
    expect(unrelated.response.headers.get("x-gw-cache-hit")).toBeNull();
    expect(unrelated.data.choices[0]!.message.content).toBe(`echo: ${UNRELATED}`);
    expect(calls("/v1/chat/completions").length).toBe(chatsBefore + 1);
  });

  test("a similar conversation with other parameters, or under another key, misses", async () => {
    const warmer = await ask(PARAPHRASE, { temperature: 1.5 });
    expect(warmer.response.headers.get("x-gw-cache-hit")).toBeNull();
    const otherKey = await ask(PARAPHRASE, {}, "another-key");
    expect(otherKey.response.headers.get("x-gw-cache-hit")).toBeNull();
  });

  test("the embedding call goes through the gateway's own pipeline and is logged like any request", async () => {
    await ask("Where is the Louvre?", {}, "logged-embedding");
    await gw.stop();
    gw = await gw.restart();
    const response = await gw.admin("/api/logs?objects=embedding&limit=100");
    const { logs } = (await response.json()) as { logs: Array<{ provider: string; model: string }> };
    expect(logs.length).toBeGreaterThan(0);
    expect(logs[0]).toMatchObject({ provider: "openai", model: "text-embedding-3-small" });
    const semanticHits = (await (await gw.admin("/api/logs?cache_hit_types=semantic")).json()) as { logs: unknown[] };
    expect(semanticHits.logs).toHaveLength(1);
  });
});

describe("pictures in a conversation must match exactly", () => {
  const picture = (seed: number) => `data:image/png;base64,${Buffer.from(Array.from({ length: 3_000 }, (_, index) => (index * seed) % 256)).toString("base64")}`;
  const askAbout = (text: string, url: string) =>
    new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0, defaultHeaders: { "x-gw-cache-key": "pictures" } }).chat.completions
      .create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: [{ type: "text", text }, { type: "image_url", image_url: { url } }] }] })
      .withResponse();

  test("the embedding gets the text alone; the same picture asked about in other words is a hit, another picture is not", async () => {
    const [harbour, lighthouse] = [picture(7), picture(11)];
    await askAbout(QUESTION, harbour);
    expect(calls("/v1/embeddings").at(-1)!.body).toMatchObject({ input: QUESTION });
    const samePicture = await askAbout(PARAPHRASE, harbour);
    expect(samePicture.response.headers.get("x-gw-cache-hit")).toBe("semantic");
    const chatsBefore = calls("/v1/chat/completions").length;
    const otherPicture = await askAbout(PARAPHRASE, lighthouse);
    expect(otherPicture.response.headers.get("x-gw-cache-hit")).toBeNull();
    expect(calls("/v1/chat/completions").length).toBe(chatsBefore + 1);
  });
});

describe("a failing embedding model leaves the exact cache working", () => {
  test("the semantic lookup is skipped and logged in the plugin's status", async () => {
    const put = await gw.admin("/api/plugins/response_cache", { method: "PUT", json: { config: { semantic: { embedding_model: "openai/broken-embedder" } } } });
    expect(put.status).toBe(200);
    upstream.faults.push({ kind: "status", status: 400, message: "no such embedding model" });
    await ask("exact still works", {}, "embedding-down");
    const hit = await ask("exact still works", {}, "embedding-down");
    expect(hit.response.headers.get("x-gw-cache-hit")).toBe("direct");
    const plugin = (await (await gw.admin("/api/plugins/response_cache")).json()) as { status: { logs: string[] } };
    expect(plugin.status.logs.join("\n")).toContain("semantic lookup skipped");
  });
});
