import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI, { toFile } from "openai";
import { expectGatewayError, postJson } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { loggedRequest } from "../support/logged-request";
import { type MockGemini, startMockGemini } from "../support/mock-gemini";
import { type MockOpenAIPlatform, startMockOpenAIPlatform } from "../support/mock-openai-platform";

/**
 * Imagen through the gateway: OpenAI's `images.generate` reaches Imagen on Vertex AI and the Gemini
 * API, and Imagen's own `:predict` on the genai mount reaches any image model, each written in the
 * provider's shape, read back in the client's, and priced by the image. Gemini's own image models
 * answer the same call through generateContent, priced by their tokens.
 */

const OPENAI_KEY = "sk-images-key-0001";

let gemini: MockGemini;
let openai: MockOpenAIPlatform;
let gw: TestGateway;

beforeAll(async () => {
  gemini = startMockGemini();
  gemini.validBearers.add("ya29.vertex-images");
  openai = startMockOpenAIPlatform();
  openai.keys.set(OPENAI_KEY, ["dall-e-3"]);
  gw = await startGateway({
    providers: {
      gemini: { keys: [{ id: "g", value: gemini.apiKey }], network_config: { base_url: gemini.geminiBaseUrl } },
      openai: { keys: [{ id: "o", value: OPENAI_KEY }], network_config: { base_url: openai.baseUrl } },
      vertex: { keys: [{ id: "v", value: "ya29.vertex-images", vertex_key_config: { project_id: "proj-img", region: "us-central1" } }], network_config: { base_url: gemini.vertexBaseUrl } },
    },
  });
});
afterAll(async () => {
  await gw.close();
  gemini.stop();
  openai.stop();
});

const decoded = (base64: string | undefined) => Buffer.from(base64 ?? "", "base64").toString();

describe("Imagen through the gateway", () => {
  test("OpenAI's images.generate reaches Imagen on Vertex AI: its size becomes the nearest aspect ratio, its images come back as base64, each priced", async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0, defaultHeaders: { "x-gw-metadata-case": "imagen-vertex" } });
    const result = await client.images.generate({ model: "vertex/imagen-4.0-generate-001", prompt: "a tall tower", n: 2, size: "1024x1792" });
    expect(result.data!.map((image) => decoded(image.b64_json))).toEqual(["png:a tall tower:0:9:16", "png:a tall tower:1:9:16"]);
    expect(gemini.requests.at(-1)!.path).toBe("/v1/projects/proj-img/locations/us-central1/publishers/google/models/imagen-4.0-generate-001:predict");
    const logged = await loggedRequest(gw, "imagen-vertex");
    expect(logged).toMatchObject({ object: "image.generation", provider: "vertex", model: "imagen-4.0-generate-001", status: "success" });
    expect(logged.cost as number).toBeCloseTo(2 * 0.04, 12);
  });

  test("and on the Gemini API, with the gateway's key", async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const result = await client.images.generate({ model: "gemini/imagen-4.0-fast-generate-001", prompt: "a wide field", size: "1792x1024" });
    expect(result.data!.map((image) => decoded(image.b64_json))).toEqual(["png:a wide field:0:16:9"]);
    expect(gemini.requests.at(-1)!.headers.get("x-goog-api-key")).toBe(gemini.apiKey);
  });

  test("Imagen's own :predict on the genai mount reaches any image model: DALL·E answers, in Imagen's shape", async () => {
    const response = await postJson(`${gw.url}/genai/v1beta/models/openai%2Fdall-e-3:predict`, { instances: [{ prompt: "a quiet harbour" }], parameters: { sampleCount: 1, aspectRatio: "16:9" } });
    expect(response.status).toBe(200);
    const { predictions } = (await response.json()) as { predictions: Array<{ bytesBase64Encoded: string; mimeType: string }> };
    expect(predictions.map((prediction) => decoded(prediction.bytesBase64Encoded))).toEqual(["png:a quiet harbour:0"]);
    expect(openai.requests.at(-1)!.json).toMatchObject({ model: "dall-e-3", prompt: "a quiet harbour", n: 1, size: "1792x1024", response_format: "b64_json" });
  });

  test("a Gemini image model (Nano Banana) answers images.generate through generateContent, priced by the tokens Gemini bills for the image", async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0, defaultHeaders: { "x-gw-metadata-case": "nano-banana" } });
    const result = await client.images.generate({ model: "gemini/gemini-2.5-flash-image", prompt: "a banana boat", size: "1792x1024" });
    expect(result.data!.map((image) => decoded(image.b64_json))).toEqual(["png:a banana boat:16:9"]);
    expect(gemini.requests.at(-1)).toMatchObject({
      path: "/v1beta/models/gemini-2.5-flash-image:generateContent",
      body: { contents: [{ role: "user", parts: [{ text: "a banana boat" }] }], generationConfig: { responseModalities: ["IMAGE"], imageConfig: { aspectRatio: "16:9" } } },
    });
    expect(result.usage).toMatchObject({ input_tokens: 3, output_tokens: 1290 });
    const logged = await loggedRequest(gw, "nano-banana");
    expect(logged).toMatchObject({ object: "image.generation", provider: "gemini", model: "gemini-2.5-flash-image", input_tokens: 3, output_tokens: 1290 });
    expect(logged.cost as number).toBeCloseTo(3 * 3e-7 + 1290 * 3e-5, 12);
  });

  test("and on Vertex AI", async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const result = await client.images.generate({ model: "vertex/gemini-2.5-flash-image", prompt: "a pier at dawn" });
    expect(result.data!.map((image) => decoded(image.b64_json))).toEqual(["png:a pier at dawn:1:1"]);
    expect(gemini.requests.at(-1)!.path).toBe("/v1/projects/proj-img/locations/us-central1/publishers/google/models/gemini-2.5-flash-image:generateContent");
  });

  test("asking a Gemini image model for n images makes n calls, one image each, answered together with the tokens of them all", async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0, defaultHeaders: { "x-gw-metadata-case": "nano-banana-three" } });
    const before = gemini.requests.length;
    const result = await client.images.generate({ model: "gemini/gemini-2.5-flash-image", prompt: "three piers", n: 3 });
    expect(result.data!.map((image) => decoded(image.b64_json))).toEqual(Array(3).fill("png:three piers:1:1"));
    const calls = gemini.requests.slice(before);
    expect(calls.map((call) => call.path)).toEqual(Array(3).fill("/v1beta/models/gemini-2.5-flash-image:generateContent"));
    expect(result.usage).toMatchObject({ input_tokens: 3 * 2, output_tokens: 3 * 1290, total_tokens: 3 * (2 + 1290) });
    const logged = await loggedRequest(gw, "nano-banana-three");
    expect(logged).toMatchObject({ object: "image.generation", status: "success", input_tokens: 6, output_tokens: 3870 });
    expect(logged.cost as number).toBeCloseTo(6 * 3e-7 + 3870 * 3e-5, 12);
  });

  test("an edit's n comes as form text, and Imagen's :predict asks a Gemini image model for sampleCount images the same way", async () => {
    const form = new FormData();
    form.append("model", "vertex/gemini-2.5-flash-image");
    form.append("prompt", "add a moon");
    form.append("n", "2");
    form.append("image", new File(["night sky"], "sky.png", { type: "image/png" }));
    const edited = await fetch(`${gw.url}/v1/images/edits`, { method: "POST", body: form });
    expect(edited.status).toBe(200);
    const { data } = (await edited.json()) as { data: Array<{ b64_json: string }> };
    expect(data.map((image) => decoded(image.b64_json))).toEqual(Array(2).fill("png:add a moon:1:1:edited night sky"));

    const predicted = await postJson(`${gw.url}/genai/v1beta/models/gemini%2Fgemini-2.5-flash-image:predict`, { instances: [{ prompt: "two lighthouses" }], parameters: { sampleCount: 2 } });
    expect(predicted.status).toBe(200);
    const { predictions } = (await predicted.json()) as { predictions: Array<{ bytesBase64Encoded: string }> };
    expect(predictions.map((prediction) => decoded(prediction.bytesBase64Encoded))).toEqual(Array(2).fill("png:two lighthouses:1:1"));
  });

  test("an n the images API does not take is a 400 naming it, and no call is made", async () => {
    const before = gemini.requests.length;
    for (const n of [0, 11, 1.5, "two"]) {
      await expectGatewayError(await postJson(`${gw.url}/v1/images/generations`, { model: "gemini/gemini-2.5-flash-image", prompt: "piers", n }), 400, { param: "n" });
    }
    expect(gemini.requests.length).toBe(before);
  });

  test("when one of the calls is refused, the request fails with the provider's error, as a single call's refusal would", async () => {
    const before = gemini.requests.length;
    gemini.refuseNext = { message: "The prompt was blocked for safety reasons." };
    const response = await postJson(`${gw.url}/v1/images/generations`, { model: "gemini/gemini-2.5-flash-image", prompt: "two piers", n: 2 });
    expect(gemini.requests.length - before).toBe(2);
    const body = await expectGatewayError(response, 400);
    expect(JSON.stringify(body)).toContain("blocked for safety");
  });

  test("a Gemini image model edits the images OpenAI's images.edit uploads, given inline beside the prompt; a mask, or an Imagen model, is a 400", async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0, defaultHeaders: { "x-gw-metadata-case": "nano-banana-edit" } });
    const photo = await toFile(Buffer.from("photo of a cat"), "cat.png", { type: "image/png" });
    const hat = await toFile(Buffer.from("photo of a hat"), "hat.jpg", { type: "image/jpeg" });
    const result = await client.images.edit({ model: "gemini/gemini-2.5-flash-image", image: [photo, hat], prompt: "put the hat on the cat" });
    expect(result.data!.map((image) => decoded(image.b64_json))).toEqual(["png:put the hat on the cat:1:1:edited photo of a cat+photo of a hat"]);
    const parts = (gemini.requests.at(-1)!.body.contents as Array<{ parts: Array<Record<string, unknown>> }>)[0]!.parts;
    expect(parts.map((part) => (part.inlineData as { mimeType: string } | undefined)?.mimeType ?? part.text)).toEqual(["image/png", "image/jpeg", "put the hat on the cat"]);
    expect(await loggedRequest(gw, "nano-banana-edit")).toMatchObject({ object: "image.edit", provider: "gemini", model: "gemini-2.5-flash-image", output_tokens: 1290 });

    const masked = new FormData();
    masked.append("model", "vertex/gemini-2.5-flash-image");
    masked.append("prompt", "only the sky");
    masked.append("image", new File(["photo"], "a.png", { type: "image/png" }));
    masked.append("mask", new File(["mask"], "m.png", { type: "image/png" }));
    await expectGatewayError(await fetch(`${gw.url}/v1/images/edits`, { method: "POST", body: masked }), 400, { param: "mask" });
    const onImagen = new FormData();
    onImagen.append("model", "gemini/imagen-4.0-generate-001");
    onImagen.append("prompt", "brighter");
    onImagen.append("image", new File(["photo"], "a.png", { type: "image/png" }));
    await expectGatewayError(await fetch(`${gw.url}/v1/images/edits`, { method: "POST", body: onImagen }), 400, { param: "model" });
  });

  test("a predict without a prompt is a 400 naming it", async () => {
    await expectGatewayError(await postJson(`${gw.url}/genai/v1beta/models/imagen-4.0-generate-001:predict`, { instances: [{}] }), 400, { param: "instances[0].prompt" });
  });
});
