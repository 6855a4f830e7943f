import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { GoogleGenAI } from "@google/genai";
import { startGateway, type TestGateway } from "../support/gateway";
import { loggedRequest } from "../support/logged-request";
import { type MockGemini, startMockGemini } from "../support/mock-gemini";
import { type MockOpenAI, mockEmbedding, startMockOpenAI } from "../support/mock-openai";

/** `@google/genai` in Vertex AI mode, pointed at the gateway: the paths it calls are Vertex's, not the Gemini API's. */
let gemini: MockGemini;
let openaiUpstream: MockOpenAI;
let gw: TestGateway;
let geminiOnly: TestGateway;

const VERTEX_BEARER = "ya29.vertex-mode";

/** Express mode (an API key, no project) calls `/v1beta1/publishers/google/models/…`; with a project and location the path starts with them. */
const vertexClient = (gateway: TestGateway, testCase: string, project?: { project: string; location: string }) =>
  new GoogleGenAI({ vertexai: true, apiKey: "unused", ...project, httpOptions: { baseUrl: `${gateway.url}/genai`, headers: { "x-gw-metadata-case": testCase } } });

beforeAll(async () => {
  gemini = startMockGemini();
  gemini.validBearers.add(VERTEX_BEARER);
  openaiUpstream = startMockOpenAI();
  const geminiProvider = { keys: [{ id: "g", value: gemini.apiKey }], network_config: { base_url: gemini.geminiBaseUrl } };
  gw = await startGateway({
    providers: {
      gemini: geminiProvider,
      vertex: { keys: [{ id: "v", value: VERTEX_BEARER, vertex_key_config: { project_id: "proj-gw", region: "europe-west4" } }], network_config: { base_url: gemini.vertexBaseUrl } },
      openai: { keys: [{ id: "o", value: "sk-openai-upstream-0001", models: ["gpt-4o-mini", "text-embedding-3-small", "gemini-embedding-style"] }], network_config: { base_url: openaiUpstream.baseUrl } },
    },
  });
  geminiOnly = await startGateway({ providers: { gemini: geminiProvider } });
});
afterAll(async () => {
  await gw.close();
  await geminiOnly.close();
  gemini.stop();
  openaiUpstream.stop();
});

const lastGoogleRequest = () => gemini.requests.at(-1)!;

describe("the genai SDK in Vertex AI mode", () => {
  test("express mode: a Google model goes to the Vertex provider, with the gateway's project, region and credentials", async () => {
    const response = await vertexClient(gw, "vertex-express").models.generateContent({ model: "gemini-2.5-flash", contents: "hello from vertex mode" });
    expect(response.text).toBe("echo: hello from vertex mode");
    expect(lastGoogleRequest().path).toBe("/v1/projects/proj-gw/locations/europe-west4/publishers/google/models/gemini-2.5-flash:generateContent");
    expect(lastGoogleRequest().headers.get("authorization")).toBe(`Bearer ${VERTEX_BEARER}`);
    expect(await loggedRequest(gw, "vertex-express")).toMatchObject({ provider: "vertex", model: "gemini-2.5-flash", status: "success" });
  });

  test("with the client's own project and location in the path, a stream arrives chunk by chunk", async () => {
    const client = vertexClient(gw, "vertex-project-stream", { project: "client-project", location: "us-central1" });
    let text = "";
    let chunks = 0;
    for await (const chunk of await client.models.generateContentStream({ model: "gemini-2.5-flash", contents: "stream in vertex mode" })) {
      text += chunk.text ?? "";
      chunks++;
    }
    expect(text).toBe("echo: stream in vertex mode");
    expect(chunks).toBeGreaterThan(1);
    expect(lastGoogleRequest().path).toBe("/v1/projects/proj-gw/locations/europe-west4/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
    expect(await loggedRequest(gw, "vertex-project-stream")).toMatchObject({ provider: "vertex", stream: true, status: "success" });
  });

  test("a model written provider/model reaches that provider, translated from Gemini's format", async () => {
    const response = await vertexClient(gw, "vertex-to-openai").models.generateContent({ model: "openai/gpt-4o-mini", contents: "hello openai from vertex mode" });
    expect(response.text).toBe("echo: hello openai from vertex mode");
    expect(openaiUpstream.requests.at(-1)!.body).toMatchObject({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hello openai from vertex mode" }] });
    expect(await loggedRequest(gw, "vertex-to-openai")).toMatchObject({ provider: "openai", model: "gpt-4o-mini" });
  });

  test("countTokens is answered by Vertex's own countTokens", async () => {
    const response = await vertexClient(gw, "vertex-count", { project: "client-project", location: "us-central1" }).models.countTokens({ model: "gemini-2.5-flash", contents: "count these five words please" });
    expect(response.totalTokens).toBeGreaterThan(0);
    expect(lastGoogleRequest().path).toBe("/v1/projects/proj-gw/locations/europe-west4/publishers/google/models/gemini-2.5-flash:countTokens");
  });

  test("embedContent of a text-embedding model, which the SDK sends as :predict, is answered with its predictions, one a text", async () => {
    const response = await vertexClient(gw, "vertex-embed-predict").models.embedContent({ model: "text-embedding-005", contents: ["alpha", "beta gamma"], config: { outputDimensionality: 4, taskType: "RETRIEVAL_DOCUMENT" } });
    expect(response.embeddings!.map((embedding) => embedding.values)).toEqual([mockEmbedding("alpha", 4), mockEmbedding("beta gamma", 4)]);
    expect(lastGoogleRequest()).toMatchObject({ path: "/v1/projects/proj-gw/locations/europe-west4/publishers/google/models/text-embedding-005:predict", body: { instances: [{ content: "alpha" }, { content: "beta gamma" }], parameters: { outputDimensionality: 4 } } });
    expect(await loggedRequest(gw, "vertex-embed-predict")).toMatchObject({ object: "embedding", provider: "vertex", model: "text-embedding-005" });
  });

  test("embedContent of a text-embedding model reaches another provider as its embeddings, at the size asked for", async () => {
    const response = await vertexClient(gw, "vertex-embed-openai").models.embedContent({ model: "openai/text-embedding-3-small", contents: ["one text"], config: { outputDimensionality: 6 } });
    expect(response.embeddings!.map((embedding) => embedding.values)).toEqual([mockEmbedding("one text", 6)]);
    expect(openaiUpstream.requests.at(-1)!.body).toMatchObject({ model: "text-embedding-3-small", input: ["one text"], dimensions: 6 });
  });

  test("embedContent of a Gemini embedding model, which the SDK sends as :embedContent with embedContentConfig, keeps its size", async () => {
    const response = await vertexClient(gw, "vertex-embed-content").models.embedContent({ model: "openai/gemini-embedding-style", contents: "a single text", config: { outputDimensionality: 5 } });
    expect(response.embeddings!.map((embedding) => embedding.values)).toEqual([mockEmbedding("a single text", 5)]);
    expect(openaiUpstream.requests.at(-1)!.body).toMatchObject({ input: "a single text", dimensions: 5 });
  });

  test("a :predict instance without text to embed or a prompt is a 400 naming the field", async () => {
    const response = await fetch(`${gw.url}/genai/v1beta1/publishers/google/models/text-embedding-005:predict`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ instances: [{ content: "" }] }) });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { param?: string } }).error.param).toBe("instances[0].content");
  });

  test("generateImages reaches Imagen on Vertex AI and answers its predictions", async () => {
    const response = await vertexClient(gw, "vertex-imagen").models.generateImages({ model: "imagen-4.0-generate-001", prompt: "a lighthouse", config: { numberOfImages: 2, aspectRatio: "16:9" } });
    expect(response.generatedImages!.map((image) => Buffer.from(image.image!.imageBytes!, "base64").toString())).toEqual(["png:a lighthouse:0:16:9", "png:a lighthouse:1:16:9"]);
    expect(lastGoogleRequest().path).toBe("/v1/projects/proj-gw/locations/europe-west4/publishers/google/models/imagen-4.0-generate-001:predict");
  });

  test("where no Vertex provider is configured, a Google model goes to the Gemini API", async () => {
    const response = await vertexClient(geminiOnly, "vertex-on-gemini").models.generateContent({ model: "gemini-2.5-flash", contents: "no vertex here" });
    expect(response.text).toBe("echo: no vertex here");
    expect(lastGoogleRequest().path).toBe("/v1beta/models/gemini-2.5-flash:generateContent");
    expect(await loggedRequest(geminiOnly, "vertex-on-gemini")).toMatchObject({ provider: "gemini" });
  });

  test("generateVideos on Vertex AI: the operation is polled with fetchPredictOperation through the gateway, the video's bytes in Vertex's answer", async () => {
    const project = { project: "client-project", location: "us-central1" };
    let operation = await vertexClient(gw, "vertex-veo", project).models.generateVideos({ model: "veo-3.0-generate-001", prompt: "a paper boat", config: { durationSeconds: 4 } });
    expect(lastGoogleRequest().path).toBe("/v1/projects/proj-gw/locations/europe-west4/publishers/google/models/veo-3.0-generate-001:predictLongRunning");
    const poller = vertexClient(gw, "vertex-veo-poll", project);
    while (!operation.done) operation = await poller.operations.getVideosOperation({ operation });
    expect(lastGoogleRequest().path).toBe("/v1/projects/proj-gw/locations/europe-west4/publishers/google/models/veo-3.0-generate-001:fetchPredictOperation");
    const [video] = operation.response!.generatedVideos!;
    expect(Buffer.from(video!.video!.videoBytes!, "base64").toString()).toBe("mp4:a paper boat:0");
    const logged = await loggedRequest(gw, "vertex-veo");
    expect(logged).toMatchObject({ object: "video.generation", provider: "vertex", model: "veo-3.0-generate-001" });
    // Four seconds at $0.40 a second.
    expect(logged.cost as number).toBeCloseTo(4 * 0.4, 9);
    expect(await loggedRequest(gw, "vertex-veo-poll")).toMatchObject({ object: "gemini_operation.get", provider: "vertex", cost: null });
  });

  test("a video the Gemini API makes answers a Vertex-mode client in Vertex's shape, its file by URI", async () => {
    const client = vertexClient(gw, "vertex-veo-on-gemini");
    let operation = await client.models.generateVideos({ model: "gemini/veo-3.0-fast-generate-001", prompt: "a kite" });
    expect(lastGoogleRequest().path).toBe("/v1beta/models/veo-3.0-fast-generate-001:predictLongRunning");
    while (!operation.done) operation = await client.operations.getVideosOperation({ operation });
    expect(lastGoogleRequest().headers.get("x-goog-api-key")).toBe(gemini.apiKey);
    expect(operation.response!.generatedVideos![0]!.video!.uri).toMatch(/\/files\/[^/:]+:download/);
  });

  test("express mode on API version v1 polls at /v1/models/{model}:fetchPredictOperation, the path of the Gemini API's v1 methods, which still answer", async () => {
    const client = new GoogleGenAI({ vertexai: true, apiKey: "unused", apiVersion: "v1", httpOptions: { baseUrl: `${gw.url}/genai`, headers: { "x-gw-metadata-case": "vertex-veo-v1" } } });
    let operation = await client.models.generateVideos({ model: "veo-3.0-generate-001", prompt: "a paper crane", config: { durationSeconds: 4 } });
    while (!operation.done) operation = await client.operations.getVideosOperation({ operation });
    expect(lastGoogleRequest().path).toBe("/v1/projects/proj-gw/locations/europe-west4/publishers/google/models/veo-3.0-generate-001:fetchPredictOperation");
    expect(Buffer.from(operation.response!.generatedVideos![0]!.video!.videoBytes!, "base64").toString()).toBe("mp4:a paper crane:0");
    const geminiApi = new GoogleGenAI({ apiKey: "unused", apiVersion: "v1", httpOptions: { baseUrl: `${gw.url}/genai` } });
    expect((await geminiApi.models.generateContent({ model: "gemini/gemini-2.5-flash", contents: "still here" })).text).toBe("echo: still here");
  });

  test("caches.* with a project: kept by the Vertex provider in the gateway's project, named in the client's; a prompt naming one reads it", async () => {
    const client = vertexClient(gw, "vertex-cache", { project: "client-project", location: "us-central1" });
    const manual = "the manual says to restart the router before calling support";
    const cache = await client.caches.create({ model: "gemini-2.5-flash", config: { contents: [{ role: "user", parts: [{ text: manual }] }], displayName: "manual", ttl: "600s" } });
    expect(lastGoogleRequest().path).toBe("/v1/projects/proj-gw/locations/europe-west4/cachedContents");
    expect(lastGoogleRequest().body.model).toBe("projects/proj-gw/locations/europe-west4/publishers/google/models/gemini-2.5-flash");
    expect(cache.name).toMatch(/^projects\/client-project\/locations\/us-central1\/cachedContents\/[\w-]+$/);
    expect(cache.model).toBe("projects/client-project/locations/us-central1/publishers/google/models/gemini-2.5-flash");
    const id = cache.name!.split("/").at(-1);
    expect(await loggedRequest(gw, "vertex-cache")).toMatchObject({ object: "gemini_cache.create", provider: "vertex", status: "success" });

    const answer = await client.models.generateContent({ model: "gemini-2.5-flash", contents: "what does it say", config: { cachedContent: cache.name } });
    expect(lastGoogleRequest().body.cachedContent).toBe(`projects/proj-gw/locations/europe-west4/cachedContents/${id}`);
    expect(answer.usageMetadata?.cachedContentTokenCount).toBe(manual.split(" ").length);

    const listed = [];
    for await (const entry of await client.caches.list()) listed.push(entry.name);
    expect(listed).toContain(cache.name);
    expect((await client.caches.get({ name: cache.name! })).displayName).toBe("manual");
    const extended = await client.caches.update({ name: cache.name!, config: { ttl: "7200s" } });
    expect(Date.parse(extended.expireTime!)).toBeGreaterThan(Date.parse(cache.expireTime!));
    await client.caches.delete({ name: cache.name! });
    expect(lastGoogleRequest().path).toBe(`/v1/projects/proj-gw/locations/europe-west4/cachedContents/${id}`);
    const gone = await client.caches.get({ name: cache.name! }).catch((error: unknown) => error);
    expect((gone as { status?: number }).status).toBe(404);
  });

  test("caches.* with a project and no Vertex provider: kept by the Gemini API, still named in the client's project", async () => {
    const client = vertexClient(geminiOnly, "vertex-cache-on-gemini", { project: "client-project", location: "us-central1" });
    const cache = await client.caches.create({ model: "gemini-2.5-flash", config: { contents: [{ role: "user", parts: [{ text: "the kept words" }] }] } });
    expect(lastGoogleRequest().path).toBe("/v1beta/cachedContents");
    expect(lastGoogleRequest().body.model).toBe("models/gemini-2.5-flash");
    expect(cache.name).toStartWith("projects/client-project/locations/us-central1/cachedContents/");
    const answer = await client.models.generateContent({ model: "gemini-2.5-flash", contents: "and so", config: { cachedContent: cache.name } });
    expect(lastGoogleRequest().body.cachedContent).toBe(`cachedContents/${cache.name!.split("/").at(-1)}`);
    expect(answer.usageMetadata?.cachedContentTokenCount).toBe(3);
  });

  test("a poll without an operation name is a 400 naming operationName", async () => {
    const response = await fetch(`${gw.url}/genai/v1beta1/models/veo-3.0-generate-001:fetchPredictOperation`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { param?: string } }).error.param).toBe("operationName");
  });

  test("models.get answers a model a key here serves, and a 404 for a provider not configured here; models.list lists them", async () => {
    const client = vertexClient(gw, "vertex-models");
    const model = await client.models.get({ model: "gemini-2.5-flash" });
    expect(model).toMatchObject({ name: "models/gemini-2.5-flash", displayName: "gemini-2.5-flash" });
    expect(await client.models.get({ model: "openai/gpt-4o-mini" })).toMatchObject({ displayName: "gpt-4o-mini" });
    const unknown = await fetch(`${gw.url}/genai/v1beta1/publishers/anthropic/models/claude-sonnet-4-5`);
    expect(unknown.status).toBe(404);
    const names: string[] = [];
    for await (const listed of await client.models.list()) names.push(listed.name!);
    expect(names).toContain("models/openai/gpt-4o-mini");
  });

  test("a method Gemini does not have is a 404 naming the ones it does", async () => {
    const response = await fetch(`${gw.url}/genai/v1beta1/publishers/google/models/gemini-2.5-flash:summon`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain("generateContent");
  });
});
