import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI, { toFile } from "openai";
import { startGateway, type TestGateway } from "../support/gateway";
import { loggedRequest } from "../support/logged-request";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { videoBytes } from "../support/mock-openai-videos";

/**
 * OpenAI's Videos API (Sora) through the gateway, as the SDK calls it: a create queues a video,
 * which is polled until done, downloaded (the video or its thumbnail, bytes as they are), remixed,
 * listed and deleted, each call with the gateway's key and logged as what it did.
 */

let openai: MockOpenAI;
let gw: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  openai = startMockOpenAI();
  gw = await startGateway({ providers: { openai: { keys: [{ id: "sora", value: "sk-sora-upstream" }], network_config: { base_url: openai.baseUrl } } } });
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  openai.stop();
});

async function finished(id: string): Promise<OpenAI.Videos.Video> {
  for (;;) {
    const video = await client.videos.retrieve(id);
    if (video.status === "completed" || video.status === "failed") return video;
  }
}

describe("videos OpenAI generates", () => {
  test("are created, polled until done, downloaded, remixed, listed and deleted", async () => {
    const created = await client.videos.create({ model: "sora-2", prompt: "a heron lands on a pier", seconds: "8" });
    expect(created).toMatchObject({ status: "queued", model: "sora-2", seconds: "8" });
    expect(openai.requests.at(-1)!.headers.get("authorization")).toBe("Bearer sk-sora-upstream");
    expect((await finished(created.id)).status).toBe("completed");

    const video = await client.videos.downloadContent(created.id);
    expect(video.headers.get("content-type")).toBe("video/mp4");
    expect(new Uint8Array(await video.arrayBuffer())).toEqual(videoBytes(created.id, "video"));
    const thumbnail = await client.videos.downloadContent(created.id, { variant: "thumbnail" });
    expect(new Uint8Array(await thumbnail.arrayBuffer())).toEqual(videoBytes(created.id, "thumbnail"));

    const remix = await client.videos.remix(created.id, { prompt: "the heron flies off" });
    expect(remix).toMatchObject({ remixed_from_video_id: created.id, prompt: "the heron flies off" });
    const listed = [];
    for await (const entry of client.videos.list()) listed.push(entry.id);
    expect(listed).toEqual(expect.arrayContaining([created.id, remix.id]));
    await client.videos.delete(created.id);
    expect(openai.videos.has(created.id)).toBe(false);
  });

  test("a create with a reference image sends the image on", async () => {
    const image = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]);
    const created = await client.videos.create({ model: "sora-2", prompt: "bring this still to life", input_reference: await toFile(image, "still.png", { type: "image/png" }) });
    expect(openai.videos.get(created.id)!.reference).toEqual(image);
  });

  test("each call is logged as what it did", async () => {
    const tagged = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", defaultHeaders: { "x-gw-metadata-case": "video-create" } });
    await tagged.videos.create({ model: "sora-2", prompt: "logged" });
    expect(await loggedRequest(gw, "video-create")).toMatchObject({ object: "video.create", provider: "openai", selected_key_id: "sora", status: "success" });
  });
});
