import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { GoogleGenAI } from "@google/genai";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { loggedRequest } from "../support/logged-request";
import { type MockGeminiBatches, startMockGeminiBatches } from "../support/mock-gemini-batches";

/**
 * `@google/genai`'s files API through the Gemini mount: an upload runs Gemini's resumable
 * protocol through the gateway (the start call's upload URL names the gateway, so the bytes pass
 * it too, with its key), then the file is read, listed and deleted.
 */

const UPSTREAM_KEY = "gemini-files-key";
let upstream: MockGeminiBatches;
let gw: TestGateway;
let ai: GoogleGenAI;

beforeAll(async () => {
  upstream = startMockGeminiBatches(UPSTREAM_KEY);
  gw = await startGateway({ providers: { gemini: { keys: [{ id: "g", value: UPSTREAM_KEY }], network_config: { base_url: upstream.baseUrl } } } });
  ai = new GoogleGenAI({ apiKey: "unused", httpOptions: { baseUrl: `${gw.url}/genai` } });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

describe("files the Gemini API keeps", () => {
  test("an upload goes through the gateway, start and bytes alike, and the file is read, listed and deleted", async () => {
    const text = "the quarterly report, in full";
    const file = await ai.files.upload({ file: new Blob([text], { type: "text/plain" }), config: { displayName: "report.txt" } });
    expect(file).toMatchObject({ displayName: "report.txt", mimeType: expect.stringMatching(/^text\/plain/), sizeBytes: String(text.length) });
    const uploads = upstream.requests.filter((request) => request.path.startsWith("/upload/v1beta/files"));
    expect(uploads.map((request) => request.headers.get("x-goog-upload-command"))).toEqual(["start", "upload, finalize"]);
    expect(uploads.every((request) => request.headers.get("x-goog-api-key") === UPSTREAM_KEY)).toBe(true);
    expect(new TextDecoder().decode(upstream.files.get(file.name!)!.bytes)).toBe(text);

    expect((await ai.files.get({ name: file.name! })).displayName).toBe("report.txt");
    const listed = [];
    for await (const entry of await ai.files.list()) listed.push(entry.name);
    expect(listed).toContain(file.name);
    await ai.files.delete({ name: file.name! });
    expect(upstream.files.has(file.name!)).toBe(false);
  });

  test("under a framework mount the upload URL names that mount, and the upload completes through it", async () => {
    const framework = new GoogleGenAI({ apiKey: "unused", httpOptions: { baseUrl: `${gw.url}/langchain/genai` } });
    const start = await fetch(`${gw.url}/langchain/genai/upload/v1beta/files`, {
      method: "POST",
      headers: { "x-goog-upload-protocol": "resumable", "x-goog-upload-command": "start", "content-type": "application/json" },
      body: JSON.stringify({ file: { displayName: "via langchain" } }),
    });
    expect(start.headers.get("x-goog-upload-url")).toStartWith(`${gw.url}/langchain/genai/upload/v1beta/files?`);
    const file = await framework.files.upload({ file: new Blob(["framework upload"], { type: "text/plain" }) });
    expect(new TextDecoder().decode(upstream.files.get(file.name!)!.bytes)).toBe("framework upload");
  });

  test("an upload's start whose body is not JSON is a 400 naming the body", async () => {
    const response = await fetch(`${gw.url}/genai/upload/v1beta/files`, { method: "POST", headers: { "x-goog-upload-protocol": "resumable", "x-goog-upload-command": "start" }, body: "not json" });
    await expectGatewayError(response, 400, { param: "body" });
  });

  test("each call is logged as what it did", async () => {
    const tagged = new GoogleGenAI({ apiKey: "unused", httpOptions: { baseUrl: `${gw.url}/genai`, headers: { "x-gw-metadata-case": "gemini-files" } } });
    const file = await tagged.files.upload({ file: new Blob(["logged"], { type: "text/plain" }) });
    await tagged.files.get({ name: file.name! });
    expect(await loggedRequest(gw, "gemini-files")).toMatchObject({ object: "gemini_file.get", provider: "gemini", status: "success" });
  });
});

describe("a Gemini provider whose keys belong to different projects", () => {
  test("an upload's bytes go with the key that started it, and the file is read and deleted with that key, also after a restart", async () => {
    const keys = [
      { id: "project-a", value: "gemini-project-a" },
      { id: "project-b", value: "gemini-project-b" },
    ];
    const projects = startMockGeminiBatches(...keys.map((key) => key.value));
    projects.keysAreProjects = true;
    let gateway = await startGateway({ providers: { gemini: { keys, network_config: { base_url: projects.baseUrl } } } });
    try {
      const uploaded = [];
      for (let index = 0; index < 8; index++) {
        const file = await new GoogleGenAI({ apiKey: "unused", httpOptions: { baseUrl: `${gateway.url}/genai` } }).files.upload({ file: new Blob([`file ${index}`], { type: "text/plain" }) });
        uploaded.push(file.name!);
      }
      const uploads = projects.requests.filter((request) => request.path.startsWith("/upload/v1beta/files"));
      const keyOf = (request: (typeof uploads)[number]) => request.headers.get("x-goog-api-key");
      // Each upload's start, then its bytes, with the same key.
      for (let index = 0; index < uploads.length; index += 2) expect(keyOf(uploads[index + 1]!)).toBe(keyOf(uploads[index]!));

      gateway = await gateway.restart();
      const sdk = new GoogleGenAI({ apiKey: "unused", httpOptions: { baseUrl: `${gateway.url}/genai` } });
      for (const [index, name] of uploaded.entries()) {
        expect((await sdk.files.get({ name })).sizeBytes).toBe(String(`file ${index}`.length));
        await sdk.files.delete({ name });
      }
      expect(projects.files.size).toBe(0);
    } finally {
      await gateway.close();
      projects.stop();
    }
  });
});
