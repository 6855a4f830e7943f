import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI, { toFile } from "openai";
import { startGateway, type TestGateway } from "../support/gateway";
import { loggedRequest } from "../support/logged-request";
import { type MockOpenAIPlatform, spokenAudio, startMockOpenAIPlatform } from "../support/mock-openai-platform";

let upstream: MockOpenAIPlatform;
let gw: TestGateway;
let client: OpenAI;

const KEY = "sk-media-key-0001";

beforeAll(async () => {
  upstream = startMockOpenAIPlatform();
  upstream.keys.set(KEY, ["gpt-4o-mini-tts", "gpt-4o-transcribe", "gpt-image-1", "dall-e-3", "dall-e-2", "tts-1", "whisper-1"]);
  gw = await startGateway({ providers: { openai: { keys: [{ id: "media", value: KEY, aliases: { speaker: "gpt-4o-mini-tts" } }], network_config: { base_url: upstream.baseUrl } } } });
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

const lastRequest = (path: string) => upstream.requests.findLast((request) => request.path === path)!;

describe("POST /v1/audio/speech: binary audio, relayed as it arrives", () => {
  test("the OpenAI SDK gets the upstream's audio bytes, with their content type", async () => {
    const response = await client.audio.speech.create({ model: "openai/gpt-4o-mini-tts", voice: "alloy", input: "good morning" });
    expect(response.headers.get("content-type")).toBe("audio/mpeg");
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(spokenAudio("good morning"));
    const sent = lastRequest("/v1/audio/speech");
    expect(sent.json).toMatchObject({ model: "gpt-4o-mini-tts", voice: "alloy", input: "good morning" });
    expect(sent.headers.get("authorization")).toBe(`Bearer ${KEY}`);
  });

  test("the body streams: the client reads the audio in the chunks the upstream sent", async () => {
    // The upstream sends the rest only once the client holds the first chunk: a gateway that
    // waited for the whole body would never pass it on.
    const released = Promise.withResolvers<void>();
    upstream.speechHeldUntil = released.promise;
    const response = await client.audio.speech.create({ model: "openai/speaker", voice: "verse", input: "a streamed sentence", response_format: "wav" });
    upstream.speechHeldUntil = undefined;
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(first.value).toEqual(spokenAudio("a streamed sentence").slice(0, 4));
    released.resolve();
    const chunks = [first.value!];
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
    expect(new Uint8Array(Buffer.concat(chunks))).toEqual(spokenAudio("a streamed sentence"));
    expect(response.headers.get("content-type")).toBe("audio/wav");
    // The alias names the upstream model.
    expect(lastRequest("/v1/audio/speech").json!.model).toBe("gpt-4o-mini-tts");
  });

  test("stream_format sse: the audio arrives as server-sent events", async () => {
    const response = await client.audio.speech.create({ model: "openai/gpt-4o-mini-tts", voice: "alloy", input: "events please", stream_format: "sse" });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const events = (await response.text()).split("\n\n").filter(Boolean).map((frame) => JSON.parse(frame.replace(/^data: /, "")) as { type: string; audio?: string });
    expect(events.map((event) => event.type)).toEqual(["speech.audio.delta", "speech.audio.done"]);
    expect(new Uint8Array(Buffer.from(events[0]!.audio!, "base64"))).toEqual(spokenAudio("events please"));
  });
});

describe("POST /v1/audio/transcriptions: multipart in", () => {
  test("the SDK's upload reaches the provider as multipart, file intact and model rewritten", async () => {
    const audio = new Uint8Array(4096).map((_, index) => index % 251);
    const result = await client.audio.transcriptions.create({ model: "openai/gpt-4o-transcribe", file: await toFile(audio, "meeting.mp3"), language: "en" });
    expect(result.text).toBe("transcribed 4096 bytes of meeting.mp3 with gpt-4o-transcribe");
    const form = lastRequest("/v1/audio/transcriptions").form!;
    expect(form.get("language")).toBe("en");
    expect(new Uint8Array(await (form.get("file") as File).arrayBuffer())).toEqual(audio);
  });

  test("response_format text answers plain text", async () => {
    const text = await client.audio.transcriptions.create({ model: "openai/gpt-4o-transcribe", file: await toFile(new Uint8Array(10), "short.wav"), response_format: "text" });
    expect(text as unknown as string).toBe("transcribed 10 bytes of short.wav with gpt-4o-transcribe");
  });

  test("a form without a file is a 400 naming it", async () => {
    const form = new FormData();
    form.append("model", "openai/gpt-4o-transcribe");
    const response = await fetch(`${gw.url}/v1/audio/transcriptions`, { method: "POST", body: form });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { param: string } }).error.param).toBe("file");
  });
});

describe("POST /v1/audio/translations, /v1/images/edits and /v1/moderations", () => {
  test("a translation's upload reaches the provider as multipart, file intact and model rewritten", async () => {
    const result = await client.audio.translations.create({ model: "openai/whisper-1", file: await toFile(new Uint8Array(300), "interview.mp3") });
    expect(result.text).toBe("translated 300 bytes of interview.mp3 with whisper-1");
  });

  test("an edit of several images gets one result per image, in OpenAI's shape", async () => {
    const images = [await toFile(new Uint8Array([1, 2, 3]), "room.png", { type: "image/png" }), await toFile(new Uint8Array([4, 5]), "lamp.png", { type: "image/png" })];
    const result = await client.images.edit({ model: "openai/gpt-image-1", image: images, prompt: "make it cosy" });
    expect(result.data!.map((image) => Buffer.from(image.b64_json!, "base64").toString())).toEqual(["edited:room.png:make it cosy", "edited:lamp.png:make it cosy"]);
    expect(lastRequest("/v1/images/edits").form!.get("model")).toBe("gpt-image-1");
  });

  test("a moderation without a model goes to OpenAI's default one, and comes back flagged as OpenAI flags it", async () => {
    const result = await client.moderations.create({ input: ["a kind word", "a hateful word"] });
    expect(result.results.map((entry) => entry.flagged)).toEqual([false, true]);
    expect(lastRequest("/v1/moderations").json!.model).toBe("omni-moderation-latest");
  });

  test("a moderation without input is a 400 naming it", async () => {
    const response = await fetch(`${gw.url}/v1/moderations`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "openai/omni-moderation-latest" }) });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { param: string } }).error.param).toBe("input");
  });
});

describe("POST /v1/images/generations and /v1/responses/input_tokens", () => {
  test("images come back in OpenAI's shape with their usage", async () => {
    const result = await client.images.generate({ model: "openai/gpt-image-1", prompt: "a lighthouse at dusk", n: 2 });
    expect(result.data!.map((image) => Buffer.from(image.b64_json!, "base64").toString())).toEqual(["png:a lighthouse at dusk:0", "png:a lighthouse at dusk:1"]);
    expect(result.usage?.output_tokens).toBe(2000);
    expect(lastRequest("/v1/images/generations").json).toMatchObject({ model: "gpt-image-1", n: 2 });
  });

  test("input token counts pass through", async () => {
    const counted = await client.responses.inputTokens.count({ model: "openai/gpt-4o-mini", input: "three little words" });
    expect(counted).toEqual({ object: "response.input_tokens", input_tokens: 3 });
    expect(lastRequest("/v1/responses/input_tokens").json!.model).toBe("gpt-4o-mini");
  });
});

describe("usage and cost of audio and images are logged", () => {
  test("speech is charged for its input's tokens, images for the tokens the provider reports", async () => {
    const override = (pattern: string, patch: Record<string, number>) => gw.admin("/api/governance/pricing-overrides", { method: "POST", json: { name: pattern, pattern, patch } });
    expect((await override("gpt-4o-mini-tts", { input_cost_per_token: 0.001, output_cost_per_token: 0.0001 })).status).toBeLessThan(300);
    expect((await override("gpt-image-1", { input_cost_per_token: 0.01, output_cost_per_token: 0.0001 })).status).toBeLessThan(300);
    const tagged = { headers: { "x-gw-metadata-case": "media-cost" } };
    await (await client.audio.speech.create({ model: "openai/gpt-4o-mini-tts", voice: "alloy", input: "four tokens right here" }, tagged)).arrayBuffer();
    await client.images.generate({ model: "openai/gpt-image-1", prompt: "two words" }, tagged);
    // Stopping flushes the log queue; the restarted gateway reads what was written.
    await gw.stop();
    gw = await gw.restart();
    const { logs } = (await (await gw.admin("/api/logs?metadata_case=media-cost")).json()) as { logs: Array<Record<string, unknown>> };
    const byObject = Object.fromEntries(logs.map((row) => [row.object, row]));
    expect(byObject["audio.speech"]).toMatchObject({ model: "gpt-4o-mini-tts", status: "success", input_tokens: 4, output_tokens: 0 });
    expect(byObject["audio.speech"]!.cost).toBeCloseTo(4 * 0.001, 12);
    expect(byObject["image.generation"]).toMatchObject({ model: "gpt-image-1", input_tokens: 2, output_tokens: 1000 });
    expect(byObject["image.generation"]!.cost).toBeCloseTo(2 * 0.01 + 1000 * 0.0001, 12);
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
  });

  test("speech asked for as events is charged for the audio tokens its last event reports, beside its input's (at the prices set above)", async () => {
    const input = "count the audio too";
    const response = await client.audio.speech.create({ model: "openai/gpt-4o-mini-tts", voice: "alloy", input, stream_format: "sse" }, { headers: { "x-gw-metadata-case": "speech-events-cost" } });
    const events = (await response.text()).split("\n\n").filter(Boolean).map((event) => JSON.parse(event.slice("data: ".length)) as { type: string; usage?: { input_tokens: number; output_tokens: number } });
    const reported = events.at(-1)!.usage!;
    expect(reported.output_tokens).toBe(spokenAudio(input).length);
    const logged = await loggedRequest(gw, "speech-events-cost");
    expect(logged).toMatchObject({ object: "audio.speech", input_tokens: reported.input_tokens, output_tokens: reported.output_tokens });
    expect(logged.cost as number).toBeCloseTo(reported.input_tokens * 0.001 + reported.output_tokens * 0.0001, 12);
  });

  test("what is priced by the unit is charged by it: DALL·E's images by quality and size, tts-1's characters, whisper-1's seconds", async () => {
    const tagged = { headers: { "x-gw-metadata-case": "unit-cost" } };
    await client.images.generate({ model: "openai/dall-e-3", prompt: "a wide lighthouse", quality: "hd", size: "1792x1024" }, tagged);
    await client.images.generate({ model: "openai/dall-e-2", prompt: "small lighthouses", size: "256x256", n: 3 }, tagged);
    const spoken = "eighteen characters";
    await (await client.audio.speech.create({ model: "openai/tts-1", voice: "alloy", input: spoken }, tagged)).arrayBuffer();
    await client.audio.transcriptions.create({ model: "openai/whisper-1", file: await toFile(new Uint8Array(4500), "call.mp3") }, tagged);
    await gw.stop();
    gw = await gw.restart();
    const { logs } = (await (await gw.admin("/api/logs?metadata_case=unit-cost")).json()) as { logs: Array<Record<string, unknown>> };
    const costOf = (model: string) => logs.find((row) => row.model === model)!.cost as number;
    expect(costOf("dall-e-3")).toBeCloseTo(0.12, 12);
    expect(costOf("dall-e-2")).toBeCloseTo(3 * 0.016, 12);
    expect(costOf("tts-1")).toBeCloseTo(spoken.length * 15e-6, 12);
    expect(costOf("whisper-1")).toBeCloseTo(5 * 0.0001, 12);
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
  });
});
