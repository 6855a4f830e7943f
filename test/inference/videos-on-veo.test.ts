import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI, { toFile } from "openai";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { loggedRequest } from "../support/logged-request";
import { type MockGemini, startMockGemini } from "../support/mock-gemini";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

/**
 * OpenAI's Videos API for a model Veo makes, on the Gemini API or Vertex AI: the SDK's create starts
 * Veo's operation, retrieve polls it, downloadContent fetches the video, each on Google's API with
 * the gateway's key, priced by the seconds asked for; Sora's videos still go to OpenAI on the same routes.
 */

let gemini: MockGemini;
let openai: MockOpenAI;
let gw: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  gemini = startMockGemini();
  gemini.validBearers.add("ya29.vertex-videos");
  openai = startMockOpenAI();
  gw = await startGateway({
    providers: {
      gemini: { keys: [{ id: "g", value: gemini.apiKey }], network_config: { base_url: gemini.geminiBaseUrl } },
      openai: { keys: [{ id: "sora", value: "sk-sora-upstream" }], network_config: { base_url: openai.baseUrl } },
      vertex: { keys: [{ id: "v", value: "ya29.vertex-videos", vertex_key_config: { project_id: "proj-videos", region: "europe-west4" } }], network_config: { base_url: gemini.vertexBaseUrl } },
    },
  });
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  gemini.stop();
  openai.stop();
});

async function finished(id: string): Promise<OpenAI.Videos.Video> {
  for (;;) {
    const video = await client.videos.retrieve(id);
    if (video.status === "completed" || video.status === "failed") return video;
  }
}

const lastVeoCreate = () => gemini.requests.findLast((request) => request.path.endsWith(":predictLongRunning"))!;

describe("OpenAI's Videos API on Veo", () => {
  test("a video is created, polled until done and downloaded, in OpenAI's shapes, with the length and size asked for", async () => {
    const created = await client.videos.create({ model: "gemini/veo-3.0-fast-generate-001", prompt: "a heron lands on a pier", seconds: "4", size: "720x1280" }, { headers: { "x-gw-metadata-case": "veo-openai-create" } });
    expect(created).toMatchObject({ object: "video", status: "queued", model: "veo-3.0-fast-generate-001", seconds: "4", size: "720x1280", prompt: "a heron lands on a pier", error: null });
    expect(lastVeoCreate()).toMatchObject({ path: "/v1beta/models/veo-3.0-fast-generate-001:predictLongRunning", body: { instances: [{ prompt: "a heron lands on a pier" }], parameters: { durationSeconds: 4, aspectRatio: "9:16", resolution: "720p" } } });
    expect(lastVeoCreate().headers.get("x-goog-api-key")).toBe(gemini.apiKey);

    const done = await finished(created.id);
    expect(done).toMatchObject({ id: created.id, status: "completed", progress: 100, seconds: "4", size: "720x1280", error: null });
    const content = await client.videos.downloadContent(created.id);
    expect(content.headers.get("content-type")).toBe("video/mp4");
    expect(await content.text()).toBe("mp4:a heron lands on a pier:0");

    const logged = await loggedRequest(gw, "veo-openai-create");
    expect(logged).toMatchObject({ object: "video.generation", provider: "gemini", model: "veo-3.0-fast-generate-001", status: "success" });
    expect(logged.cost as number).toBeCloseTo(4 * 0.15, 9);
  });

  test("on Vertex AI too: the video is polled with Vertex's fetchPredictOperation and its bytes come from Vertex's answer", async () => {
    const created = await client.videos.create({ model: "vertex/veo-3.0-generate-001", prompt: "a glacier calves", seconds: "8", size: "1792x1024" });
    expect(lastVeoCreate()).toMatchObject({ path: "/v1/projects/proj-videos/locations/europe-west4/publishers/google/models/veo-3.0-generate-001:predictLongRunning", body: { parameters: { durationSeconds: 8, aspectRatio: "16:9", resolution: "720p" } } });
    expect((await finished(created.id)).status).toBe("completed");
    expect(gemini.requests.at(-1)!.path).toEndWith("/models/veo-3.0-generate-001:fetchPredictOperation");
    const content = await client.videos.downloadContent(created.id);
    expect(content.headers.get("content-type")).toBe("video/mp4");
    expect(await content.text()).toBe("mp4:a glacier calves:0");
  });

  test("a create without a length or size makes Veo's default video, and says so", async () => {
    const created = await client.videos.create({ model: "gemini/veo-2.0-generate-001", prompt: "waves at dusk" });
    expect(created).toMatchObject({ seconds: "8", size: "1280x720" });
    expect(lastVeoCreate().body.parameters).toEqual({});
  });

  test("a reference image goes to Veo as the image the video starts from", async () => {
    const image = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]);
    await client.videos.create({ model: "gemini/veo-3.0-generate-001", prompt: "it comes alive", input_reference: await toFile(image, "start.png", { type: "image/png" }) });
    expect((lastVeoCreate().body.instances as Array<Record<string, unknown>>)[0]).toEqual({ prompt: "it comes alive", image: { bytesBase64Encoded: Buffer.from(image).toString("base64"), mimeType: "image/png" } });
  });

  test("a video Veo's filter refuses ends failed, with the filter's reason", async () => {
    const created = await client.videos.create({ model: "gemini/veo-3.0-generate-001", prompt: "something forbidden" });
    const done = await finished(created.id);
    expect(done.status).toBe("failed");
    expect(done.error).toEqual({ code: "content_filtered", message: "The prompt could not be submitted: it names something forbidden." });
    await expectGatewayError(await fetch(`${gw.url}/v1/videos/${created.id}/content`), 409, { param: "video_id" });
  });

  test("a video not finished yet cannot be downloaded; one Veo made cannot be deleted or remixed; an id the gateway never made is a 404", async () => {
    const created = await client.videos.create({ model: "gemini/veo-3.0-generate-001", prompt: "a slow train" });
    await expectGatewayError(await fetch(`${gw.url}/v1/videos/${created.id}/content`), 409, { param: "video_id" });
    await expectGatewayError(await fetch(`${gw.url}/v1/videos/${created.id}`, { method: "DELETE" }), 400, { param: "video_id" });
    await expectGatewayError(await fetch(`${gw.url}/v1/videos/${created.id}/remix`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ prompt: "faster" }) }), 400, { param: "video_id" });
    await expectGatewayError(await fetch(`${gw.url}/v1/videos/video_veo_bm90IGEgdmlkZW8`), 404, {});
  });

  test("a length that is not a whole number of seconds is a 400 naming it", async () => {
    const form = new FormData();
    form.append("model", "gemini/veo-3.0-generate-001");
    form.append("prompt", "a kite");
    form.append("seconds", "four");
    await expectGatewayError(await fetch(`${gw.url}/v1/videos`, { method: "POST", body: form }), 400, { param: "seconds" });
  });

  test("Sora's videos still go to OpenAI on the same routes", async () => {
    const created = await client.videos.create({ model: "sora-2", prompt: "a heron on OpenAI" });
    expect(openai.videos.has(created.id)).toBe(true);
    expect((await client.videos.retrieve(created.id)).model).toBe("sora-2");
  });
});
