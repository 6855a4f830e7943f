import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { expectGatewayError } from "../support/gateway-error";
import { eventually } from "../support/eventually";
import { closeNodes, startNodes, type TestGateway } from "../support/gateway";
import { loggedRequest } from "../support/logged-request";
import { type MockGemini, startMockGemini } from "../support/mock-gemini";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { startGateway } from "../support/gateway";
import { TestClock } from "../support/test-clock";
import { UNREAD_VIDEOS_SWEEP_MS } from "../../src/governance/limits/unread-videos";
import { SELF_READ_AFTER_MS } from "../../src/governance/limits/video-charges";
import { createVirtualKey, ManualClock, startClockedGateway } from "./support";

/**
 * A video is charged to the budgets when its create is answered, before anyone knows whether it
 * will be made. One that fails (Sora's moderation, Veo's safety filter) gives its charge back
 * when a read finds it failed: once, however often it is read, across a restart, and only to the
 * budget window it was taken from.
 */

const DAY_MS = 86_400_000;

let openai: MockOpenAI;
let gemini: MockGemini;
let clock: ManualClock;
let gw: TestGateway;

beforeAll(async () => {
  openai = startMockOpenAI();
  gemini = startMockGemini();
  clock = new ManualClock(Date.now());
  gw = await startClockedGateway(
    {
      providers: {
        openai: { keys: [{ id: "sora", value: "sk-sora-upstream" }], network_config: { base_url: openai.baseUrl } },
        gemini: { keys: [{ id: "g", value: gemini.apiKey }], network_config: { base_url: gemini.geminiBaseUrl } },
      },
    },
    clock,
  );
});
afterAll(async () => {
  await gw.close();
  openai.stop();
  gemini.stop();
});

/** A virtual key with a budget of `dollars` a day, and an OpenAI client spending it. */
async function spender(name: string, dollars: number) {
  const key = await createVirtualKey(gw, { name, budgets: [{ max_limit: dollars, reset_duration: "1d" }] });
  return { key, client: new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0, defaultHeaders: { "x-gw-vk": key.value } }) };
}

async function budgetUsed(keyId: string, node = gw): Promise<number> {
  const { budgets } = (await (await node.admin("/api/governance/budgets")).json()) as { budgets: Array<{ owner_id: string; current_usage: number }> };
  return budgets.find((budget) => budget.owner_id === keyId)!.current_usage;
}

/** A create is charged as it settles, just after its answer: the budget once it shows `dollars`. */
const charged = (keyId: string, dollars: number, node = gw) => eventually(() => budgetUsed(keyId, node), (used) => Math.abs(used - dollars) < 1e-9);

/** A charge is given back as the read that found the video failed settles, just after its answer. */
const givenBack = (keyId: string, node = gw) => eventually(() => budgetUsed(keyId, node), (used) => used === 0);

/** A read of a video, tagged so that its log says when it has settled (and so given back whatever it would). */
async function settledRead(client: OpenAI, id: string, testCase: string): Promise<OpenAI.Videos.Video> {
  const video = await client.videos.retrieve(id, { headers: { "x-gw-metadata-case": testCase } });
  await loggedRequest(gw, testCase);
  return video;
}

async function finished(client: OpenAI, id: string): Promise<OpenAI.Videos.Video> {
  for (;;) {
    const video = await client.videos.retrieve(id);
    if (video.status === "completed" || video.status === "failed") return video;
  }
}

const createVideo = (vk: string, prompt: string, node = gw) => fetch(`${node.url}/v1/videos`, { method: "POST", headers: { "content-type": "application/json", "x-gw-vk": vk }, body: JSON.stringify({ model: "sora-2-pro", prompt, seconds: "8" }) });

describe("a video that fails gives its charge back", () => {
  test("Sora: a video that spent the whole budget can still be read; once a read finds it failed its budget is free again, and a later read gives nothing more back", async () => {
    const { key, client } = await spender("sora refund", 1);
    const doomed = await client.videos.create({ model: "sora-2-pro", prompt: "something forbidden", seconds: "8" });
    expect(await charged(key.id, 8 * 0.3)).toBeCloseTo(8 * 0.3, 9);
    await expectGatewayError(await createVideo(key.value, "one more"), 402, { errorType: "policy_budget_exceeded" });

    expect(await finished(client, doomed.id)).toMatchObject({ status: "failed", error: { code: "moderation_blocked" } });
    expect(await givenBack(key.id)).toBe(0);

    const made = await client.videos.create({ model: "sora-2-pro", prompt: "a heron at dusk", seconds: "8" });
    expect(await charged(key.id, 8 * 0.3)).toBeCloseTo(8 * 0.3, 9);
    expect((await settledRead(client, doomed.id, "sora-failed-again")).status).toBe("failed");
    expect(await budgetUsed(key.id)).toBeCloseTo(8 * 0.3, 9);
    expect((await finished(client, made.id)).status).toBe("completed");
    expect((await settledRead(client, made.id, "sora-made-again")).status).toBe("completed");
    expect(await budgetUsed(key.id)).toBeCloseTo(8 * 0.3, 9);
  });

  test("Veo through @google/genai: an operation that ends with every video filtered out gives its charge back", async () => {
    const key = await createVirtualKey(gw, { name: "veo refund", budgets: [{ max_limit: 5, reset_duration: "1d" }] });
    const ai = new GoogleGenAI({ apiKey: "unused", httpOptions: { baseUrl: `${gw.url}/genai`, headers: { "x-gw-vk": key.value } } });
    let operation = await ai.models.generateVideos({ model: "veo-3.0-fast-generate-001", prompt: "a forbidden place", config: { durationSeconds: 4 } });
    expect(await charged(key.id, 4 * 0.15)).toBeCloseTo(4 * 0.15, 9);
    while (!operation.done) operation = await ai.operations.getVideosOperation({ operation });
    expect(operation.response?.generatedVideos ?? []).toHaveLength(0);
    expect(await givenBack(key.id)).toBe(0);
  });

  test("Veo: a request for two videos of which the filter took one out gives back half its charge", async () => {
    const key = await createVirtualKey(gw, { name: "veo partial refund", budgets: [{ max_limit: 5, reset_duration: "1d" }] });
    const ai = new GoogleGenAI({ apiKey: "unused", httpOptions: { baseUrl: `${gw.url}/genai`, headers: { "x-gw-vk": key.value } } });
    let operation = await ai.models.generateVideos({ model: "veo-3.0-fast-generate-001", prompt: "two takes, one filtered", config: { durationSeconds: 4, numberOfVideos: 2 } });
    expect(await charged(key.id, 2 * 4 * 0.15)).toBeCloseTo(2 * 4 * 0.15, 9);
    while (!operation.done) operation = await ai.operations.getVideosOperation({ operation });
    expect(operation.response?.generatedVideos).toHaveLength(1);
    expect(await charged(key.id, 4 * 0.15)).toBeCloseTo(4 * 0.15, 9);
  });

  test("OpenAI's Videos API on Veo: the same, read as a failed video", async () => {
    const { key, client } = await spender("veo openai refund", 5);
    const doomed = await client.videos.create({ model: "gemini/veo-3.0-fast-generate-001", prompt: "the forbidden city", seconds: "4" });
    expect(await charged(key.id, 4 * 0.15)).toBeCloseTo(4 * 0.15, 9);
    expect(await finished(client, doomed.id)).toMatchObject({ status: "failed", error: { code: "content_filtered" } });
    expect(await givenBack(key.id)).toBe(0);
  });

  test("the charge is held in the database: a gateway restarted before the read still gives it back", async () => {
    const { key, client } = await spender("refund after restart", 3);
    const doomed = await client.videos.create({ model: "sora-2-pro", prompt: "forbidden across a restart", seconds: "8" });
    expect(await charged(key.id, 8 * 0.3)).toBeCloseTo(8 * 0.3, 9);
    await gw.stop();
    gw = await gw.restart();
    const reader = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0, defaultHeaders: { "x-gw-vk": key.value } });
    expect(await budgetUsed(key.id)).toBeCloseTo(8 * 0.3, 9);
    expect((await finished(reader, doomed.id)).status).toBe("failed");
    expect(await givenBack(key.id)).toBe(0);
  });

  test("a charge from a budget window that has since ended is not taken from the new one", async () => {
    const { key, client } = await spender("refund across windows", 3);
    const doomed = await client.videos.create({ model: "sora-2-pro", prompt: "forbidden yesterday", seconds: "8" });
    expect(await charged(key.id, 8 * 0.3)).toBeCloseTo(8 * 0.3, 9);
    clock.advance(DAY_MS + 1);
    const reader = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0, defaultHeaders: { "x-gw-vk": key.value } });
    await reader.videos.create({ model: "sora-2", prompt: "made today", seconds: "4" });
    expect(await charged(key.id, 4 * 0.1)).toBeCloseTo(4 * 0.1, 9);
    expect((await reader.videos.retrieve(doomed.id)).status).toBe("in_progress");
    expect((await settledRead(reader, doomed.id, "failed-yesterday")).status).toBe("failed");
    expect(await budgetUsed(key.id)).toBeCloseTo(4 * 0.1, 9);
  });
});

describe("a video read on another node", () => {
  test("gives the charge back there, and every node's budget agrees once they sync", async () => {
    const sora = startMockOpenAI();
    const nodes = await startNodes({ providers: { openai: { keys: [{ id: "sora", value: "sk-sora-upstream" }], network_config: { base_url: sora.baseUrl } } } });
    try {
      const [first, second] = nodes;
      const { virtual_key: key } = (await (await first.admin("/api/governance/virtual-keys", { method: "POST", json: { name: "two nodes", budgets: [{ max_limit: 3, reset_duration: "1d" }] } })).json()) as { virtual_key: { id: string; value: string } };
      const on = (node: TestGateway) => new OpenAI({ baseURL: `${node.url}/v1`, apiKey: "unused", maxRetries: 0, defaultHeaders: { "x-gw-vk": key.value } });
      const usedOn = async (node: TestGateway) => {
        const { budgets } = (await (await node.admin("/api/governance/budgets")).json()) as { budgets: Array<{ owner_id: string; current_usage: number }> };
        return budgets.find((budget) => budget.owner_id === key.id)?.current_usage;
      };
      // Nodes take in each other's changes every second: the second one knows the key once it lists its budget.
      await eventually(() => usedOn(second), (used) => used !== undefined);
      const doomed = await on(first).videos.create({ model: "sora-2-pro", prompt: "forbidden on the first node", seconds: "8" });
      expect(await eventually(() => usedOn(first), (used) => used !== undefined && Math.abs(used - 8 * 0.3) < 1e-9)).toBeCloseTo(8 * 0.3, 9);
      for (let video = doomed; video.status !== "failed"; ) video = await on(second).videos.retrieve(doomed.id);
      expect(await eventually(() => usedOn(second), (used) => used === 0)).toBe(0);
      expect(await eventually(() => usedOn(first), (used) => used === 0)).toBe(0);
    } finally {
      await closeNodes(nodes);
      sora.stop();
    }
  });
});

/**
 * A gateway whose budgets read a clock of their own and whose sweeps run on the actors' test clock;
 * `sweep()` moves both past the next self-read and runs one sweep to its end.
 */
async function sweptGateway(config: Parameters<typeof startGateway>[0]) {
  const budgetClock = new ManualClock(Date.now());
  const actorClock = new TestClock();
  const node = await startGateway(config, { runtime: { clock: budgetClock.read, actorClock } });
  const sweep = async () => {
    budgetClock.advance(SELF_READ_AFTER_MS);
    await actorClock.timerSet(UNREAD_VIDEOS_SWEEP_MS);
    actorClock.increment(UNREAD_VIDEOS_SWEEP_MS);
    // A sweep arms the next one once it is done.
    await actorClock.timerSet(UNREAD_VIDEOS_SWEEP_MS);
  };
  return { node, sweep };
}

describe("a video no client reads to its end", () => {
  test("is read by the gateway itself half an hour after its create, and again until it ends: one that failed gives its charge back", async () => {
    const { node, sweep } = await sweptGateway({ providers: { openai: { keys: [{ id: "sora", value: "sk-sora-upstream" }], network_config: { base_url: openai.baseUrl } } } });
    try {
      const key = await createVirtualKey(node, { name: "never read", budgets: [{ max_limit: 5, reset_duration: "1d" }] });
      expect((await createVideo(key.value, "a forbidden dream", node)).status).toBe(200);
      expect(await charged(key.id, 8 * 0.3, node)).toBeCloseTo(8 * 0.3, 9);
      const reads = () => openai.requests.filter((request) => request.path.startsWith("/v1/videos/")).length;
      const before = reads();
      // Sora's mock moves a video on with each read: queued, in progress, then failed.
      await sweep();
      expect(reads()).toBe(before + 1);
      await sweep();
      expect(reads()).toBe(before + 2);
      expect(await givenBack(key.id, node)).toBe(0);
      // Logged as the gateway's own reads.
      const ownReads = async () => {
        const { logs } = (await (await node.admin("/api/logs?limit=10&origin=gateway")).json()) as { logs: Array<{ object: string; metadata: Record<string, string> }> };
        return logs.filter((log) => log.metadata.caller === "video-reader").map((log) => log.object);
      };
      expect(await eventually(ownReads, (objects) => objects.length === 2)).toEqual(["video.retrieve", "video.retrieve"]);
      // Ended, the charge is no longer held: later sweeps read nothing.
      await sweep();
      expect(reads()).toBe(before + 2);
    } finally {
      await node.close();
    }
  });

  test("a video deleted before it ended is read once more, found gone, and no longer read: its charge stays", async () => {
    const { node, sweep } = await sweptGateway({ providers: { openai: { keys: [{ id: "sora", value: "sk-sora-upstream" }], network_config: { base_url: openai.baseUrl } } } });
    try {
      const key = await createVirtualKey(node, { name: "deleted early", budgets: [{ max_limit: 5, reset_duration: "1d" }] });
      const created = await createVideo(key.value, "a short-lived dream", node);
      const { id } = (await created.json()) as { id: string };
      expect(await charged(key.id, 8 * 0.3, node)).toBeCloseTo(8 * 0.3, 9);
      const client = new OpenAI({ baseURL: `${node.url}/v1`, apiKey: "unused", maxRetries: 0, defaultHeaders: { "x-gw-vk": key.value } });
      expect((await client.videos.delete(id)).deleted).toBe(true);
      const reads = () => openai.requests.filter((request) => request.path === `/v1/videos/${id}`).length;
      const afterDelete = reads();
      await sweep();
      expect(reads()).toBe(afterDelete + 1);
      await sweep();
      await sweep();
      expect(reads()).toBe(afterDelete + 1);
      expect(await budgetUsed(key.id, node)).toBeCloseTo(8 * 0.3, 9);
    } finally {
      await node.close();
    }
  });

  test("a Veo operation nobody polls is polled by the gateway with the key that started it: one whose videos were all filtered out gives its charge back", async () => {
    const { node, sweep } = await sweptGateway({ providers: { gemini: { keys: [{ id: "g", value: gemini.apiKey }], network_config: { base_url: gemini.geminiBaseUrl } } } });
    try {
      const key = await createVirtualKey(node, { name: "veo never polled", budgets: [{ max_limit: 5, reset_duration: "1d" }] });
      const ai = new GoogleGenAI({ apiKey: "unused", httpOptions: { baseUrl: `${node.url}/genai`, headers: { "x-gw-vk": key.value } } });
      await ai.models.generateVideos({ model: "veo-3.0-fast-generate-001", prompt: "a forbidden garden", config: { durationSeconds: 4 } });
      expect(await charged(key.id, 4 * 0.15, node)).toBeCloseTo(4 * 0.15, 9);
      const polls = () => gemini.requests.filter((request) => request.path.includes("/operations/"));
      const before = polls().length;
      // The mock's operation is still running at the first poll, and done at the second.
      await sweep();
      await sweep();
      expect(polls().slice(before).map((request) => request.path)).toEqual(Array(2).fill(expect.stringMatching(/^\/v1beta\/models\/veo-3.0-fast-generate-001\/operations\/op\d+$/)));
      expect(polls().at(-1)!.headers.get("x-goog-api-key")).toBe(gemini.apiKey);
      expect(await givenBack(key.id, node)).toBe(0);
    } finally {
      await node.close();
    }
  });
});
