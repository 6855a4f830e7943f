import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type GenerateVideosOperation, GoogleGenAI } from "@google/genai";
import { expectGatewayError, postJson } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { loggedRequest } from "../support/logged-request";
import { type MockGemini, startMockGemini } from "../support/mock-gemini";

/**
 * Veo through the gateway: `@google/genai`'s generateVideos starts the operation with the gateway's
 * key, getVideosOperation polls it and files.download fetches each video, all on the genai mount;
 * the videos are priced by the seconds asked for, and a provider with keys in several projects
 * polls and downloads with the key that started the video. On Vertex AI the same calls work, its
 * operation polled with `:fetchPredictOperation` and its videos' bytes read from the answer.
 */

const OTHER_PROJECT_KEY = "gemini-upstream-key-other-project";
const VERTEX_TOKEN = "ya29.vertex-veo";

let gemini: MockGemini;
let gw: TestGateway;
let downloads: string;

beforeAll(async () => {
  gemini = startMockGemini();
  gemini.otherProjectKeys.add(OTHER_PROJECT_KEY);
  gemini.validBearers.add(VERTEX_TOKEN);
  // Unpinned calls always take the first key: the second has no weight.
  gw = await startGateway({
    providers: {
      gemini: {
        keys: [
          { id: "main", value: gemini.apiKey, weight: 1 },
          { id: "other-project", value: OTHER_PROJECT_KEY, weight: 0 },
        ],
        network_config: { base_url: gemini.geminiBaseUrl },
      },
      vertex: { keys: [{ id: "v", value: VERTEX_TOKEN, vertex_key_config: { project_id: "proj-veo", region: "us-central1" } }], network_config: { base_url: gemini.vertexBaseUrl } },
    },
  });
  downloads = mkdtempSync(join(tmpdir(), "veo-"));
});
afterAll(async () => {
  await gw.close();
  gemini.stop();
  rmSync(downloads, { recursive: true, force: true });
});

const genai = (headers: Record<string, string> = {}) => new GoogleGenAI({ apiKey: "unused", httpOptions: { baseUrl: `${gw.url}/genai`, headers } });

async function finished(ai: GoogleGenAI, started: GenerateVideosOperation): Promise<GenerateVideosOperation> {
  let operation = started;
  while (!operation.done) operation = await ai.operations.getVideosOperation({ operation });
  return operation;
}

describe("Veo through the gateway", () => {
  test("generateVideos starts the operation, polling finds the videos, and files.download fetches them through the gateway", async () => {
    const ai = genai({ "x-gw-metadata-case": "veo-create" });
    const started = await ai.models.generateVideos({ model: "veo-3.0-fast-generate-001", prompt: "a fox in the snow", config: { numberOfVideos: 2, durationSeconds: 6 } });
    expect(started.done).toBeFalsy();
    expect(gemini.requests.at(-1)).toMatchObject({ path: "/v1beta/models/veo-3.0-fast-generate-001:predictLongRunning", body: { instances: [{ prompt: "a fox in the snow" }], parameters: { sampleCount: 2, durationSeconds: 6 } } });
    expect(gemini.requests.at(-1)!.headers.get("x-goog-api-key")).toBe(gemini.apiKey);

    const operation = await finished(genai(), started);
    const videos = operation.response!.generatedVideos!;
    expect(videos).toHaveLength(2);

    const contents = await Promise.all(
      videos.map(async (video, index) => {
        const path = join(downloads, `fox-${index}.mp4`);
        await genai().files.download({ file: video, downloadPath: path });
        return readFileSync(path, "utf8");
      }),
    );
    expect(contents).toEqual(["mp4:a fox in the snow:0", "mp4:a fox in the snow:1"]);
  });

  test("the video is logged and priced by the seconds asked for; polls and downloads are logged without a cost", async () => {
    const logged = await loggedRequest(gw, "veo-create");
    expect(logged).toMatchObject({ object: "video.generation", provider: "gemini", model: "veo-3.0-fast-generate-001", status: "success" });
    // Two videos of six seconds, at $0.15 a second.
    expect(logged.cost as number).toBeCloseTo(2 * 6 * 0.15, 9);

    const ai = genai({ "x-gw-metadata-case": "veo-poll" });
    await finished(ai, await genai().models.generateVideos({ model: "veo-2.0-generate-001", prompt: "waves" }));
    expect(await loggedRequest(gw, "veo-poll")).toMatchObject({ object: "gemini_operation.get", provider: "gemini", status: "success", cost: null });
  });

  test("a video asked for without a length is priced at Veo's eight seconds", async () => {
    await genai({ "x-gw-metadata-case": "veo-default-length" }).models.generateVideos({ model: "gemini/veo-2.0-generate-001", prompt: "a slow river" });
    expect((await loggedRequest(gw, "veo-default-length")).cost as number).toBeCloseTo(8 * 0.35, 9);
  });

  test("a video started with one project's key is polled and downloaded with it, though calls without a pin take the other key", async () => {
    const started = await genai({ "x-gw-api-key-id": "other-project" }).models.generateVideos({ model: "veo-3.0-generate-001", prompt: "a lighthouse" });
    expect(gemini.requests.at(-1)!.headers.get("x-goog-api-key")).toBe(OTHER_PROJECT_KEY);
    const operation = await finished(genai(), started);
    const path = join(downloads, "lighthouse.mp4");
    await genai().files.download({ file: operation.response!.generatedVideos![0]!, downloadPath: path });
    expect(readFileSync(path, "utf8")).toBe("mp4:a lighthouse:0");
    expect(gemini.requests.slice(-3).map((request) => request.headers.get("x-goog-api-key"))).toEqual([OTHER_PROJECT_KEY, OTHER_PROJECT_KEY, OTHER_PROJECT_KEY]);
  });

  test("over plain HTTP, a video's file is downloaded at the gateway's path for the file Google's URI names", async () => {
    const started = (await (await postJson(`${gw.url}/genai/v1beta/models/veo-3.0-generate-001:predictLongRunning`, { instances: [{ prompt: "a kite" }] })).json()) as { name: string };
    let operation: { done?: boolean; response?: { generateVideoResponse: { generatedSamples: Array<{ video: { uri: string } }> } } } = {};
    while (!operation.done) operation = (await (await fetch(`${gw.url}/genai/v1beta/${started.name}`)).json()) as typeof operation;
    const { pathname, search } = new URL(operation.response!.generateVideoResponse.generatedSamples[0]!.video.uri);
    const download = await fetch(`${gw.url}/genai${pathname}${search}`);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("video/mp4");
    expect(await download.text()).toBe("mp4:a kite:0");
  });

  test("an instance with neither a prompt nor an image, or a length that is not a whole number, is a 400 naming the field", async () => {
    const url = `${gw.url}/genai/v1beta/models/veo-3.0-generate-001:predictLongRunning`;
    await expectGatewayError(await postJson(url, { instances: [{}] }), 400, { param: "instances[0].prompt" });
    await expectGatewayError(await postJson(url, { instances: [{ prompt: "x" }], parameters: { durationSeconds: 2.5 } }), 400, { param: "parameters.durationSeconds" });
  });

  test("on Vertex AI: the operation is Vertex's, polled with fetchPredictOperation beside the Gemini API's, the video's bytes in the answer", async () => {
    const ai = genai({ "x-gw-metadata-case": "veo-vertex" });
    const started = await ai.models.generateVideos({ model: "vertex/veo-3.0-generate-001", prompt: "a red balloon", config: { durationSeconds: 4 } });
    expect(gemini.requests.at(-1)).toMatchObject({ path: "/v1/projects/proj-veo/locations/us-central1/publishers/google/models/veo-3.0-generate-001:predictLongRunning", body: { instances: [{ prompt: "a red balloon" }], parameters: { durationSeconds: 4 } } });
    const operation = await finished(genai(), started);
    expect(gemini.requests.at(-1)).toMatchObject({
      path: "/v1/projects/proj-veo/locations/us-central1/publishers/google/models/veo-3.0-generate-001:fetchPredictOperation",
      body: { operationName: expect.stringMatching(/^projects\/proj-veo\/locations\/us-central1\/publishers\/google\/models\/veo-3.0-generate-001\/operations\/op\d+$/) },
    });
    const path = join(downloads, "balloon.mp4");
    await genai().files.download({ file: operation.response!.generatedVideos![0]!, downloadPath: path });
    expect(readFileSync(path, "utf8")).toBe("mp4:a red balloon:0");
    const logged = await loggedRequest(gw, "veo-vertex");
    expect(logged).toMatchObject({ object: "video.generation", provider: "vertex", model: "veo-3.0-generate-001" });
    expect(logged.cost as number).toBeCloseTo(4 * 0.4, 9);
  });

  test("the provider lists predictLongRunning among a model's methods", async () => {
    const model = await genai().models.get({ model: "veo-3.0-generate-001" });
    expect(model.supportedActions).toContain("predictLongRunning");
  });
});
