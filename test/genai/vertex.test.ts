import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import { decodeJwt, decodeProtectedHeader, exportPKCS8, generateKeyPair, jwtVerify } from "jose";
import OpenAI from "openai";
import { startGateway, type TestGateway } from "../support/gateway";
import { expectGatewayError } from "../support/gateway-error";
import { type MockGemini, startMockGemini } from "../support/mock-gemini";
import { mockEmbedding } from "../support/mock-openai";

let upstream: MockGemini;
let gw: TestGateway;
let ai: GoogleGenAI;
let publicKey: CryptoKey;
let privateKeyPem: string;

const serviceAccount = (email: string, privateKey = privateKeyPem) =>
  JSON.stringify({ type: "service_account", project_id: "sa-project", private_key_id: "key-id-1", private_key: privateKey, client_email: email, token_uri: upstream.tokenUri });

/** A vertex-family provider whose one key carries the given vertex_key_config (and optional value). */
async function addVertexProvider(name: string, key: Record<string, unknown>) {
  const response = await gw.admin("/api/providers", {
    method: "POST",
    json: { provider: name, custom_provider_config: { base_provider_type: "vertex" }, network_config: { base_url: upstream.vertexBaseUrl }, keys: [{ id: `${name}-key`, ...key }] },
  });
  expect(response.status).toBeLessThan(300);
}

beforeAll(async () => {
  upstream = startMockGemini();
  const keys = await generateKeyPair("RS256", { extractable: true });
  publicKey = keys.publicKey;
  privateKeyPem = await exportPKCS8(keys.privateKey);
  upstream.serviceAccountKey = publicKey;
  gw = await startGateway({
    providers: {
      vertex: {
        keys: [{ id: "v1", vertex_key_config: { project_id: "proj-1", region: "europe-west4", auth_credentials: serviceAccount("gateway@proj-1.iam.gserviceaccount.com") } }],
        network_config: { base_url: upstream.vertexBaseUrl },
      },
    },
  });
  ai = new GoogleGenAI({ apiKey: "unused", httpOptions: { baseUrl: `${gw.url}/genai` } });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

const lastRequest = () => upstream.requests.at(-1)!;

describe("Vertex with a service account", () => {
  test("generateContent goes to the key's project and region with a bearer minted from a signed JWT", async () => {
    const response = await ai.models.generateContent({ model: "vertex/gemini-2.0-flash", contents: "hello vertex" });
    expect(response.text).toBe("echo: hello vertex");
    expect(lastRequest().path).toBe("/v1/projects/proj-1/locations/europe-west4/publishers/google/models/gemini-2.0-flash:generateContent");
    expect(upstream.assertions).toHaveLength(1);
    expect(lastRequest().headers.get("authorization")).toBe("Bearer ya29.mock-1");

    const assertion = upstream.assertions[0]!;
    const { payload } = await jwtVerify(assertion, publicKey, { issuer: "gateway@proj-1.iam.gserviceaccount.com", audience: upstream.tokenUri });
    expect(payload.scope).toBe("https://www.googleapis.com/auth/cloud-platform");
    expect(payload.exp! - payload.iat!).toBe(3600);
    expect(decodeProtectedHeader(assertion)).toEqual({ alg: "RS256", typ: "JWT", kid: "key-id-1" });
  });

  test("the access token is cached across requests, streams included", async () => {
    const minted = upstream.assertions.length;
    const stream = await ai.models.generateContentStream({ model: "vertex/gemini-2.0-flash", contents: "stream from vertex" });
    let text = "";
    for await (const chunk of stream) text += chunk.text ?? "";
    await ai.models.generateContent({ model: "vertex/gemini-2.0-flash", contents: "again" });
    expect(text).toBe("echo: stream from vertex");
    expect(upstream.requests.at(-2)!.path).toBe("/v1/projects/proj-1/locations/europe-west4/publishers/google/models/gemini-2.0-flash:streamGenerateContent?alt=sse");
    expect(upstream.assertions.length).toBe(minted);
    expect(lastRequest().headers.get("authorization")).toBe(`Bearer ya29.mock-${minted}`);
  });

  test("a token about to expire is replaced by a newly minted one", async () => {
    upstream.tokenLifetimeSeconds = 60;
    try {
      await addVertexProvider("vertex-short", { vertex_key_config: { project_id: "proj-2", region: "us-east5", auth_credentials: serviceAccount("short@proj-2.iam.gserviceaccount.com") } });
      const before = upstream.assertions.length;
      await ai.models.generateContent({ model: "vertex-short/gemini-2.0-flash", contents: "first" });
      await ai.models.generateContent({ model: "vertex-short/gemini-2.0-flash", contents: "second" });
      expect(upstream.assertions.length).toBe(before + 2);
      expect(decodeJwt(upstream.assertions.at(-1)!).iss).toBe("short@proj-2.iam.gserviceaccount.com");
    } finally {
      upstream.tokenLifetimeSeconds = 3600;
    }
  });

  test("countTokens is Vertex's own, with a nested generateContentRequest unwrapped as Vertex wants it", async () => {
    const response = await ai.models.countTokens({ model: "vertex/gemini-2.0-flash", contents: "three words here" });
    expect(response.totalTokens).toBe(3);
    expect(lastRequest().path).toBe("/v1/projects/proj-1/locations/europe-west4/publishers/google/models/gemini-2.0-flash:countTokens");
    const nested = await fetch(`${gw.url}/genai/v1beta/models/vertex%2Fgemini-2.0-flash:countTokens`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ generateContentRequest: { model: "models/gemini-2.0-flash", contents: [{ role: "user", parts: [{ text: "two words" }] }] } }),
    });
    expect(await nested.json()).toEqual({ totalTokens: 2 });
    expect(lastRequest().body).toEqual({ contents: [{ role: "user", parts: [{ text: "two words" }] }] });
  });

  test("the OpenAI SDK reaches a Gemini model on Vertex, streamed", async () => {
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const stream = await openai.chat.completions.create({ model: "vertex/gemini-2.5-pro", messages: [{ role: "user", content: "cross to vertex" }], stream: true });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe("echo: cross to vertex");
    expect(lastRequest().path).toBe("/v1/projects/proj-1/locations/europe-west4/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse");
  });

  test("a key whose value is set sends it as the bearer and mints nothing", async () => {
    upstream.validBearers.add("static-access-token-0001");
    await addVertexProvider("vertex-static", { value: "static-access-token-0001", vertex_key_config: { project_id: "proj-3", region: "global" } });
    const minted = upstream.assertions.length;
    const response = await ai.models.generateContent({ model: "vertex-static/gemini-2.0-flash", contents: "static" });
    expect(response.text).toBe("echo: static");
    expect(lastRequest().headers.get("authorization")).toBe("Bearer static-access-token-0001");
    expect(lastRequest().path).toBe("/v1/projects/proj-3/locations/global/publishers/google/models/gemini-2.0-flash:generateContent");
    expect(upstream.assertions.length).toBe(minted);
  });

  test("a token request the token endpoint refuses is an auth failure that names the reason, never the key", async () => {
    const stranger = await generateKeyPair("RS256", { extractable: true });
    const strangerPem = await exportPKCS8(stranger.privateKey);
    await addVertexProvider("vertex-wrong", { vertex_key_config: { project_id: "proj-4", auth_credentials: serviceAccount("wrong@proj-4.iam.gserviceaccount.com", strangerPem) } });
    const response = await fetch(`${gw.url}/genai/v1beta/models/vertex-wrong%2Fgemini-2.0-flash:generateContent`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ contents: [{ parts: [{ text: "hi" }] }] }),
    });
    const body = await expectGatewayError(response, 401, { errorType: "provider_auth_failed" });
    expect(body.error.message).toContain("Invalid JWT Signature");
    expect(JSON.stringify(body)).not.toContain("PRIVATE KEY");
  });
});

describe("Embeddings on Vertex", () => {
  const predictPath = "/v1/projects/proj-1/locations/europe-west4/publishers/google/models/text-embedding-005:predict";

  test("the genai SDK's embedContent becomes one :predict call with an instance per text", async () => {
    const response = await ai.models.embedContent({ model: "vertex/text-embedding-005", contents: ["alpha", "beta gamma"], config: { outputDimensionality: 4, taskType: "RETRIEVAL_DOCUMENT" } });
    expect(response.embeddings!.map((embedding) => embedding.values)).toEqual([mockEmbedding("alpha", 4), mockEmbedding("beta gamma", 4)]);
    expect(lastRequest().path).toBe(predictPath);
    expect(lastRequest().headers.get("authorization")).toStartWith("Bearer ya29.mock-");
    expect(lastRequest().body).toEqual({
      instances: [
        { content: "alpha", task_type: "RETRIEVAL_DOCUMENT" },
        { content: "beta gamma", task_type: "RETRIEVAL_DOCUMENT" },
      ],
      parameters: { outputDimensionality: 4 },
    });
  });

  test("embedContent called directly answers one `embedding` from Vertex's prediction", async () => {
    const response = await fetch(`${gw.url}/genai/v1beta/models/vertex%2Ftext-embedding-005:embedContent`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ content: { parts: [{ text: "single " }, { text: "text" }] } }),
    });
    expect(await response.json()).toEqual({ embedding: { values: mockEmbedding("single text") } });
    expect(lastRequest().path).toBe(predictPath);
    expect(lastRequest().body).toEqual({ instances: [{ content: "single text" }] });
  });

  test("the OpenAI SDK's embeddings reach Vertex's :predict, base64-encoded for the SDK to decode", async () => {
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const result = await openai.embeddings.create({ model: "vertex/text-embedding-005", input: ["alpha", "beta"], dimensions: 6 });
    const asFloat32 = (vector: number[]) => Array.from(new Float32Array(vector));
    expect(result.data.map((row) => row.embedding)).toEqual([asFloat32(mockEmbedding("alpha", 6)), asFloat32(mockEmbedding("beta", 6))]);
    expect(result.data.map((row) => row.index)).toEqual([0, 1]);
    expect(lastRequest().path).toBe(predictPath);
    expect(lastRequest().body).toEqual({ instances: [{ content: "alpha" }, { content: "beta" }], parameters: { outputDimensionality: 6 } });
  });
});

describe("Anthropic models on Vertex", () => {
  test("the Anthropic SDK's messages reach publishers/anthropic rawPredict with the Vertex API version and no model in the body", async () => {
    const anthropic = new Anthropic({ baseURL: `${gw.url}/anthropic`, apiKey: "unused", maxRetries: 0 });
    const message = await anthropic.messages.create({ model: "vertex/claude-sonnet-4@20250514", max_tokens: 64, messages: [{ role: "user", content: "hello claude" }] });
    expect(message.content.map((block) => block.type === "text" && block.text)).toEqual(["echo: hello claude"]);
    expect(message.stop_reason).toBe("end_turn");
    expect(lastRequest().path).toBe("/v1/projects/proj-1/locations/europe-west4/publishers/anthropic/models/claude-sonnet-4@20250514:rawPredict");
    expect(lastRequest().body).toMatchObject({ anthropic_version: "vertex-2023-10-16", max_tokens: 64 });
    expect(lastRequest().body).not.toHaveProperty("model");
  });

  test("the OpenAI SDK to a Claude model on Vertex is translated and streamed through streamRawPredict", async () => {
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const stream = await openai.chat.completions.create({ model: "vertex/claude-sonnet-4@20250514", messages: [{ role: "user", content: "stream claude" }], stream: true });
    let text = "";
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(text).toBe("echo: stream claude");
    expect(finish).toBe("stop");
    expect(lastRequest().path).toBe("/v1/projects/proj-1/locations/europe-west4/publishers/anthropic/models/claude-sonnet-4@20250514:streamRawPredict");
    expect(lastRequest().body).toMatchObject({ anthropic_version: "vertex-2023-10-16", stream: true });
  });

  test("the genai SDK to a Claude model on Vertex is translated to Anthropic messages and back", async () => {
    const response = await ai.models.generateContent({ model: "vertex/claude-sonnet-4@20250514", contents: "genai to claude" });
    expect(response.text).toBe("echo: genai to claude");
    expect(response.candidates![0]!.finishReason).toBe("STOP" as never);
    expect(lastRequest().body.messages).toEqual([{ role: "user", content: "genai to claude" }]);
  });

  test("the genai SDK streams from a Claude model on Vertex, Anthropic's events re-encoded as Gemini's", async () => {
    const stream = await ai.models.generateContentStream({ model: "vertex/claude-sonnet-4@20250514", contents: "stream genai to claude" });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.text ?? "").join("")).toBe("echo: stream genai to claude");
    expect(chunks.length).toBeGreaterThan(2);
    const last = chunks.at(-1)!;
    expect(last.candidates![0]!.finishReason).toBe("STOP" as never);
    expect(last.usageMetadata).toMatchObject({ promptTokenCount: 4, candidatesTokenCount: 5 });
    expect(lastRequest().path).toEndWith("/publishers/anthropic/models/claude-sonnet-4@20250514:streamRawPredict");
  });

  test("count_tokens for a Claude model goes to Vertex's count-tokens endpoint with the model in the body", async () => {
    const anthropic = new Anthropic({ baseURL: `${gw.url}/anthropic`, apiKey: "unused", maxRetries: 0 });
    const counted = await anthropic.messages.countTokens({ model: "vertex/claude-sonnet-4@20250514", messages: [{ role: "user", content: "four words to count" }] });
    expect(counted.input_tokens).toBe(4);
    expect(lastRequest().path).toBe("/v1/projects/proj-1/locations/europe-west4/publishers/anthropic/models/count-tokens:rawPredict");
    expect(lastRequest().body.model).toBe("claude-sonnet-4@20250514");
  });
});
