import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ApiError, GoogleGenAI } from "@google/genai";
import { startGateway, type TestGateway } from "../support/gateway";
import { loggedRequest } from "../support/logged-request";
import { type MockGemini, startMockGemini } from "../support/mock-gemini";

/**
 * `@google/genai`'s context caching through the Gemini mount: a cached content is created with the
 * gateway's key, a prompt names it in `cachedContent` and is billed its tokens as cached, and the
 * cache is listed, read, given a new expiry and deleted.
 */

let upstream: MockGemini;
let gw: TestGateway;
let ai: GoogleGenAI;

beforeAll(async () => {
  upstream = startMockGemini();
  gw = await startGateway({ providers: { gemini: { keys: [{ id: "g", value: upstream.apiKey }], network_config: { base_url: upstream.geminiBaseUrl } } } });
  ai = new GoogleGenAI({ apiKey: "unused", httpOptions: { baseUrl: `${gw.url}/genai` } });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

describe("cached contents the Gemini API keeps", () => {
  test("a prompt reads a cache made through the gateway, and the cache is listed, read, extended and deleted", async () => {
    const manual = "the manual says to restart the router before calling support";
    const cache = await ai.caches.create({ model: "gemini-2.5-flash", config: { contents: [{ role: "user", parts: [{ text: manual }] }], displayName: "manual", ttl: "600s" } });
    expect(cache.name).toStartWith("cachedContents/");
    expect(upstream.requests.at(-1)!.headers.get("x-goog-api-key")).toBe(upstream.apiKey);

    const answer = await ai.models.generateContent({ model: "gemini-2.5-flash", contents: "what does it say", config: { cachedContent: cache.name } });
    expect(answer.usageMetadata?.cachedContentTokenCount).toBe(manual.split(" ").length);

    const listed = [];
    for await (const entry of await ai.caches.list()) listed.push(entry.name);
    expect(listed).toContain(cache.name);
    expect((await ai.caches.get({ name: cache.name! })).displayName).toBe("manual");
    const extended = await ai.caches.update({ name: cache.name!, config: { ttl: "7200s" } });
    expect(Date.parse(extended.expireTime!)).toBeGreaterThan(Date.parse(cache.expireTime!));
    await ai.caches.delete({ name: cache.name! });
    const gone = await ai.caches.get({ name: cache.name! }).catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(ApiError);
    expect((gone as ApiError).status).toBe(404);
  });

  test("a cache's creation is logged as what it did", async () => {
    const tagged = new GoogleGenAI({ apiKey: "unused", httpOptions: { baseUrl: `${gw.url}/genai`, headers: { "x-gw-metadata-case": "gemini-cache" } } });
    await tagged.caches.create({ model: "gemini-2.5-flash", config: { contents: [{ role: "user", parts: [{ text: "kept" }] }] } });
    expect(await loggedRequest(gw, "gemini-cache")).toMatchObject({ object: "gemini_cache.create", provider: "gemini", status: "success" });
  });
});
