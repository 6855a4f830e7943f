import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI, { toFile } from "openai";
import { createVirtualKey } from "../governance/support";
import { expectGatewayError } from "../support/gateway-error";
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

async function finished(id: string, reader = client): Promise<OpenAI.Videos.Video> {
  for (;;) {
    const video = await reader.videos.retrieve(id);
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
    expect(await loggedRequest(gw, "video-create")).toMatchObject({ object: "video.create", provider: "openai", model: "sora-2", selected_key_id: "sora", status: "success" });
  });
});

describe("a video is priced by its seconds", () => {
  const tagged = (testCase: string, headers: Record<string, string> = {}) => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0, defaultHeaders: { "x-gw-metadata-case": testCase, ...headers } });

  test("at the model's list price per second, and the pro model's larger size at its own", async () => {
    await tagged("video-sora-2").videos.create({ model: "sora-2", prompt: "eight seconds", seconds: "8" });
    expect((await loggedRequest(gw, "video-sora-2")).cost).toBeCloseTo(8 * 0.1, 9);
    await tagged("video-pro").videos.create({ model: "sora-2-pro", prompt: "four seconds", seconds: "4" });
    expect((await loggedRequest(gw, "video-pro")).cost).toBeCloseTo(4 * 0.3, 9);
    await tagged("video-pro-large").videos.create({ model: "sora-2-pro", prompt: "four large seconds", seconds: "4", size: "1792x1024" });
    expect((await loggedRequest(gw, "video-pro-large")).cost).toBeCloseTo(4 * 0.5, 9);
    // A remix is a new video of the original's length and size.
    const original = await client.videos.create({ model: "sora-2-pro", prompt: "to remix", seconds: "8", size: "1024x1792" });
    await finished(original.id);
    await tagged("video-remix").videos.remix(original.id, { prompt: "again" });
    expect((await loggedRequest(gw, "video-remix")).cost).toBeCloseTo(8 * 0.5, 9);
  });

  test("reading, listing and downloading a video costs nothing", async () => {
    const created = await client.videos.create({ model: "sora-2", prompt: "read me" });
    await tagged("video-read").videos.retrieve(created.id);
    expect((await loggedRequest(gw, "video-read")).cost).toBeNull();
  });

  test("a virtual key's budget stops the videos it can no longer pay for, not the reads of the one it paid for", async () => {
    const key = await createVirtualKey(gw, { name: "video budget", budgets: [{ max_limit: 1, reset_duration: "1d" }] });
    const spender = tagged("video-budget", { "x-gw-vk": key.value });
    const paid = await spender.videos.create({ model: "sora-2-pro", prompt: "an expensive shot", seconds: "8" });
    expect((await loggedRequest(gw, "video-budget")).cost).toBeCloseTo(8 * 0.3, 9);
    const refused = await fetch(`${gw.url}/v1/videos`, { method: "POST", headers: { "content-type": "application/json", "x-gw-vk": key.value }, body: JSON.stringify({ model: "sora-2", prompt: "one more" }) });
    await expectGatewayError(refused, 402, { errorType: "policy_budget_exceeded" });

    const reader = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0, defaultHeaders: { "x-gw-vk": key.value } });
    expect((await finished(paid.id, reader)).status).toBe("completed");
    expect(new Uint8Array(await (await reader.videos.downloadContent(paid.id)).arrayBuffer())).toEqual(videoBytes(paid.id, "video"));
  });

  test("a pricing override sets a model's price per second", async () => {
    const override = await gw.admin("/api/governance/pricing-overrides", { method: "POST", json: { name: "cheap sora", pattern: "sora-2", patch: { output_cost_per_second: 0.01 } } });
    expect(override.status).toBeLessThan(300);
    await tagged("video-override").videos.create({ model: "sora-2", prompt: "on a discount", seconds: "12" });
    expect((await loggedRequest(gw, "video-override")).cost).toBeCloseTo(12 * 0.01, 9);
  });
});
