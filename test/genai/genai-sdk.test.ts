import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type ApiError, GoogleGenAI, Type } from "@google/genai";
import { startGateway, type TestGateway } from "../support/gateway";
import { expectGatewayError } from "../support/gateway-error";
import { type MockGemini, startMockGemini } from "../support/mock-gemini";
import { mockEmbedding } from "../support/mock-openai";

let upstream: MockGemini;
let gw: TestGateway;
let ai: GoogleGenAI;

beforeAll(async () => {
  upstream = startMockGemini();
  gw = await startGateway({
    providers: { gemini: { keys: [{ id: "g1", value: upstream.apiKey, models: ["gemini-2.0-flash", "text-embedding-004"] }], network_config: { base_url: upstream.geminiBaseUrl } } },
  });
  ai = new GoogleGenAI({ apiKey: "client-key-not-forwarded", httpOptions: { baseUrl: `${gw.url}/genai` } });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

const lastRequest = () => upstream.requests.at(-1)!;

describe("@google/genai SDK against /genai with a Gemini upstream", () => {
  test("generateContent reaches Gemini at models/{model}:generateContent with the provider's key, not the client's", async () => {
    const response = await ai.models.generateContent({ model: "gemini-2.0-flash", contents: "hello there" });
    expect(response.text).toBe("echo: hello there");
    expect(response.usageMetadata?.totalTokenCount).toBe(response.usageMetadata!.promptTokenCount! + response.usageMetadata!.candidatesTokenCount!);
    expect(lastRequest().path).toBe("/v1beta/models/gemini-2.0-flash:generateContent");
    expect(lastRequest().headers.get("x-goog-api-key")).toBe(upstream.apiKey);
    expect(lastRequest().body.contents).toEqual([{ role: "user", parts: [{ text: "hello there" }] }]);
  });

  test("generateContentStream arrives event by event, the last with finishReason and usage", async () => {
    const stream = await ai.models.generateContentStream({ model: "gemini/gemini-2.0-flash", contents: "one two three" });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.text).join("")).toBe("echo: one two three");
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.at(-1)!.candidates![0]!.finishReason).toBe("STOP" as never);
    expect(chunks.at(-1)!.usageMetadata?.candidatesTokenCount).toBe(4);
    expect(lastRequest().path).toBe("/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse");
  });

  test("function declarations go through and the model's functionCall comes back", async () => {
    const response = await ai.models.generateContent({
      model: "gemini-2.0-flash",
      contents: "what is the weather?",
      config: { tools: [{ functionDeclarations: [{ name: "get_weather", parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } } } }] }] },
    });
    expect(response.functionCalls).toEqual([{ name: "get_weather", args: { city: "Paris" } }]);
    expect(lastRequest().body.tools).toEqual([{ functionDeclarations: [{ name: "get_weather", parameters: { type: "OBJECT", properties: { city: { type: "STRING" } } } }] }]);
  });

  test("embedContent with several inputs is one batchEmbedContents call naming the upstream model in every request", async () => {
    const response = await ai.models.embedContent({ model: "text-embedding-004", contents: ["alpha", "beta"], config: { outputDimensionality: 4 } });
    expect(response.embeddings!.map((embedding) => embedding.values)).toEqual([mockEmbedding("alpha", 4), mockEmbedding("beta", 4)]);
    expect(lastRequest().path).toBe("/v1beta/models/text-embedding-004:batchEmbedContents");
    expect((lastRequest().body.requests as Array<{ model: string }>).map((request) => request.model)).toEqual(["models/text-embedding-004", "models/text-embedding-004"]);
  });

  test("embedContent called directly answers one `embedding`", async () => {
    const response = await fetch(`${gw.url}/genai/v1beta/models/text-embedding-004:embedContent`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ content: { parts: [{ text: "gamma" }] } }),
    });
    expect(await response.json()).toEqual({ embedding: { values: mockEmbedding("gamma") } });
    expect(lastRequest().path).toBe("/v1beta/models/text-embedding-004:embedContent");
  });

  test("countTokens is answered by Gemini's own countTokens", async () => {
    const response = await ai.models.countTokens({ model: "gemini-2.0-flash", contents: "count these five words please" });
    expect(response.totalTokens).toBe(5);
    expect(lastRequest().path).toBe("/v1beta/models/gemini-2.0-flash:countTokens");
  });

  test("a provider-prefixed model may be URL-encoded in the path", async () => {
    const response = await fetch(`${gw.url}/genai/v1beta/models/gemini%2Fgemini-2.0-flash:generateContent`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ contents: [{ parts: [{ text: "encoded" }] }] }),
    });
    const body = (await response.json()) as { candidates: Array<{ content: { parts: Array<{ text: string }> } }> };
    expect(body.candidates[0]!.content.parts[0]!.text).toBe("echo: encoded");
    expect(response.headers.get("x-gw-provider")).toBe("gemini");
  });

  test("the framework mounts serve the genai format beneath /genai", async () => {
    for (const framework of ["litellm", "langchain", "pydanticai"]) {
      const mounted = new GoogleGenAI({ apiKey: "unused", httpOptions: { baseUrl: `${gw.url}/${framework}/genai` } });
      const response = await mounted.models.generateContent({ model: "gemini-2.0-flash", contents: framework });
      expect(response.text).toBe(`echo: ${framework}`);
    }
  });

  test("models lists what the keys name, as Gemini model resources", async () => {
    const response = await fetch(`${gw.url}/genai/v1beta/models`);
    const body = (await response.json()) as { models: Array<{ name: string; supportedGenerationMethods: string[] }> };
    expect(body.models.map((model) => model.name)).toEqual(["models/gemini/gemini-2.0-flash", "models/gemini/text-embedding-004"]);
    expect(body.models[0]!.supportedGenerationMethods).toContain("streamGenerateContent");
  });

  test("models.get answers for a model a key serves, bare or provider-prefixed, and 404 for one none does", async () => {
    expect(await ai.models.get({ model: "gemini-2.0-flash" })).toMatchObject({ name: "models/gemini-2.0-flash", supportedActions: expect.arrayContaining(["generateContent"]) });
    expect((await ai.models.get({ model: "gemini/text-embedding-004" })).name).toBe("models/gemini/text-embedding-004");
    const missing = await ai.models.get({ model: "gemini-9-ultra" }).catch((error: ApiError) => error);
    expect((missing as ApiError).status).toBe(404);
  });

  test("an upstream refusal reaches the SDK as an error with the upstream's status", async () => {
    await gw.admin("/api/providers", {
      method: "POST",
      json: { provider: "gemini-stale", custom_provider_config: { base_provider_type: "gemini" }, network_config: { base_url: upstream.geminiBaseUrl }, keys: [{ id: "stale", value: "revoked-key-000000" }] },
    });
    const failure = await ai.models.generateContent({ model: "gemini-stale/gemini-2.0-flash", contents: "hi" }).catch((error: ApiError) => error);
    expect((failure as ApiError).status).toBe(400);
    expect((failure as ApiError).message).toContain("API key not valid");
    expect((failure as ApiError).message).not.toContain("revoked-key-000000");
  });
});

describe("/genai input validation", () => {
  const post = (path: string, body: unknown) => fetch(`${gw.url}/genai/v1beta/models/${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

  test("a request without contents is a 400 naming contents", async () => {
    await expectGatewayError(await post("gemini-2.0-flash:generateContent", { generationConfig: {} }), 400, { param: "contents" });
  });

  test("a malformed part is a 400 naming the field inside contents", async () => {
    await expectGatewayError(await post("gemini-2.0-flash:generateContent", { contents: [{ role: "user", parts: [{ inlineData: { data: "AAAA" } }] }] }), 400, { param: "contents[0].parts[0].inlineData.mimeType" });
  });

  test("an out-of-range generation setting is a 400 naming it", async () => {
    await expectGatewayError(await post("gemini-2.0-flash:generateContent", { contents: [{ parts: [{ text: "x" }] }], generationConfig: { topP: 3 } }), 400, { param: "generationConfig.topP" });
  });

  test("countTokens without contents is a 400", async () => {
    await expectGatewayError(await post("gemini-2.0-flash:countTokens", {}), 400, { param: "contents" });
  });

  test("an unknown method is a 404", async () => {
    await expectGatewayError(await post("gemini-2.0-flash:explode", { contents: [] }), 404);
  });
});
