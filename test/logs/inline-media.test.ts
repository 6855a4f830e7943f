import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockAnthropic, startMockAnthropic } from "../support/mock-anthropic";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

const ANTHROPIC_KEY = "sk-ant-inline-media";
/** Bytes that encode to base64 with no padding, so the expected lengths below are plain arithmetic. */
const imageBytes = (size: number) => Buffer.from(Array.from({ length: size }, (_, index) => (index * 31) % 256));
const PNG_BASE64 = imageBytes(150_000).toString("base64");
const JPEG_BASE64 = imageBytes(90_000).toString("base64");
/** A long pasted document: large, but text, so it is logged whole. */
const DOCUMENT = Array.from({ length: 4_000 }, (_, index) => `clause ${index} of the harbour lease`).join("; ");
const SMALL_ICON = imageBytes(300).toString("base64");
/** 20,000 bases without a space: as long as an image's base64 and as free of punctuation, but text. */
const SEQUENCE = Array.from({ length: 20_000 }, (_, index) => "ACGT"[(index * index + 3 * index) % 4]).join("");

let openaiUpstream: MockOpenAI;
let anthropicUpstream: MockAnthropic;
let gw: TestGateway;

type LoggedRow = { request_content: { messages: Array<{ content: unknown }>; api_key?: string } };

async function loggedCase(name: string): Promise<LoggedRow> {
  const { logs } = (await (await gw.admin(`/api/logs?metadata_case=${name}`)).json()) as { logs: Array<{ id: string }> };
  expect(logs).toHaveLength(1);
  return (await (await gw.admin(`/api/logs/${logs[0]!.id}`)).json()) as LoggedRow;
}

const tagged = (name: string) => ({ headers: { "x-gw-metadata-case": name } });

beforeAll(async () => {
  openaiUpstream = startMockOpenAI();
  anthropicUpstream = startMockAnthropic(ANTHROPIC_KEY);
  gw = await startGateway({
    providers: {
      openai: { keys: [{ id: "o1", value: "sk-openai-inline-media" }], network_config: { base_url: openaiUpstream.baseUrl } },
      anthropic: { keys: [{ id: "a1", value: ANTHROPIC_KEY }], network_config: { base_url: anthropicUpstream.baseUrl } },
    },
  });
  const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
  await openai.chat.completions.create(
    {
      model: "openai/gpt-4o-mini",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "describe the lighthouse in this photo" },
            { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
            { type: "image_url", image_url: { url: `data:image/png;base64,${SMALL_ICON}` } },
          ],
        },
      ],
      // A credential in a large body is still redacted.
      ...({ api_key: "sk-live-in-a-large-body" } as object),
    },
    tagged("openai-image"),
  );
  await openai.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: DOCUMENT }] }, tagged("document"));
  await openai.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: SEQUENCE }] }, tagged("sequence"));
  const anthropic = new Anthropic({ baseURL: `${gw.url}/anthropic`, apiKey: "unused", maxRetries: 0 });
  await anthropic.messages.create(
    {
      model: "anthropic/claude-sonnet-4-5",
      max_tokens: 64,
      messages: [{ role: "user", content: [{ type: "image", source: { type: "base64", media_type: "image/jpeg", data: JPEG_BASE64 } }, { type: "text", text: "what breed is this dog?" }] }],
    },
    tagged("anthropic-image"),
  );
  // Stopping flushes the log queue; the restarted gateway reads what was written.
  await gw.stop();
  gw = await gw.restart();
});
afterAll(async () => {
  await gw.close();
  openaiUpstream.stop();
  anthropicUpstream.stop();
});

describe("inline media is left out of logged request bodies", () => {
  test("an OpenAI image data URL is logged as its type and length; the text, a small icon and the upstream's copy stay whole", async () => {
    const row = await loggedCase("openai-image");
    expect(row.request_content.messages[0]!.content).toEqual([
      { type: "text", text: "describe the lighthouse in this photo" },
      { type: "image_url", image_url: { url: `[image/png base64, ${PNG_BASE64.length} characters not logged]` } },
      { type: "image_url", image_url: { url: `data:image/png;base64,${SMALL_ICON}` } },
    ]);
    expect(row.request_content.api_key).toBe("[REDACTED]");
    const sent = openaiUpstream.requests.find((request) => JSON.stringify(request.body).includes("lighthouse"))!;
    expect(JSON.stringify(sent.body)).toContain(PNG_BASE64);
  });

  test("an Anthropic base64 image source is logged as its length", async () => {
    const row = await loggedCase("anthropic-image");
    expect(row.request_content.messages[0]!.content).toEqual([
      { type: "image", source: { type: "base64", media_type: "image/jpeg", data: `[base64, ${JPEG_BASE64.length} characters not logged]` } },
      { type: "text", text: "what breed is this dog?" },
    ]);
    expect(JSON.stringify(anthropicUpstream.requests.at(-1)!.body)).toContain(JPEG_BASE64);
  });

  test("a long text is logged whole, one without spaces too", async () => {
    expect((await loggedCase("document")).request_content.messages[0]!.content).toBe(DOCUMENT);
    expect((await loggedCase("sequence")).request_content.messages[0]!.content).toBe(SEQUENCE);
  });

  test("content search still finds the text beside an image", async () => {
    const found = (await (await gw.admin("/api/logs?content_search=lighthouse")).json()) as { logs: Array<{ metadata: Record<string, string> }> };
    expect(found.logs.map((log) => log.metadata.case)).toEqual(["openai-image"]);
  });
});
