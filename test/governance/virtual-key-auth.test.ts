import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { chat, createVirtualKey, openAIProvider } from "./support";

let upstream: MockOpenAI;
let optional: TestGateway;
let enforced: TestGateway;

beforeAll(async () => {
  upstream = startMockOpenAI();
  optional = await startGateway({ providers: { openai: openAIProvider(upstream) } });
  enforced = await startGateway({ enforce_auth_on_inference: true, providers: { openai: openAIProvider(upstream) } });
});
afterAll(async () => {
  await optional.close();
  await enforced.close();
  upstream.stop();
});

describe("virtual key optional (enforce_auth_on_inference off)", () => {
  test("a request without a key passes", async () => {
    expect((await chat(optional, undefined)).status).toBe(200);
  });

  test("a provider's own key is not a virtual key: it is ignored, never forwarded", async () => {
    const response = await chat(optional, undefined, {}, { authorization: "Bearer sk-proj-client-openai-key" });
    expect(response.status).toBe(200);
    expect(upstream.requests.at(-1)!.headers.get("authorization")).toBe("Bearer sk-upstream-k1");
  });

  test("an explicitly supplied unknown sk-gw- key is rejected", async () => {
    await expectGatewayError(await chat(optional, undefined, {}, { authorization: "Bearer sk-gw-not-a-real-key" }), 401, { errorType: "caller_virtual_key_invalid" });
    await expectGatewayError(await chat(optional, undefined, {}, { "x-api-key": "sk-gw-not-a-real-key" }), 401, { errorType: "caller_virtual_key_invalid" });
  });

  test("x-gw-vk names a virtual key whatever it looks like", async () => {
    await expectGatewayError(await chat(optional, "legacy-looking-key"), 401, { errorType: "caller_virtual_key_invalid" });
  });

  test("an inactive key is rejected", async () => {
    const key = await createVirtualKey(optional, { name: "switched-off", is_active: false });
    await expectGatewayError(await chat(optional, key.value), 403, { errorType: "caller_virtual_key_inactive" });
  });
});

describe("virtual key required (enforce_auth_on_inference on)", () => {
  test("a request without a key is refused with caller_virtual_key_required", async () => {
    await expectGatewayError(await chat(enforced, undefined), 401, { errorType: "caller_virtual_key_required" });
    await expectGatewayError(await chat(enforced, undefined, {}, { authorization: "Bearer sk-proj-client-openai-key" }), 401, { errorType: "caller_virtual_key_required" });
  });

  test("the OpenAI SDK sends it as Authorization: Bearer", async () => {
    const key = await createVirtualKey(enforced, { name: "openai-sdk" });
    const client = new OpenAI({ baseURL: `${enforced.url}/v1`, apiKey: key.value, maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "via bearer" }] });
    expect(completion.choices[0]!.message.content).toBe("echo: via bearer");
    expect(upstream.requests.at(-1)!.headers.get("authorization")).toBe("Bearer sk-upstream-k1");
  });

  test("the Anthropic SDK sends it as x-api-key", async () => {
    const key = await createVirtualKey(enforced, { name: "anthropic-sdk" });
    const client = new Anthropic({ baseURL: `${enforced.url}/anthropic`, apiKey: key.value, maxRetries: 0 });
    const message = await client.messages.create({ model: "openai/gpt-4o-mini", max_tokens: 32, messages: [{ role: "user", content: "via x-api-key" }] });
    expect(message.content[0]).toMatchObject({ type: "text", text: "echo: via x-api-key" });
  });

  test("the Google GenAI SDK sends it as x-goog-api-key", async () => {
    const key = await createVirtualKey(enforced, { name: "genai-sdk" });
    const ai = new GoogleGenAI({ apiKey: key.value, httpOptions: { baseUrl: `${enforced.url}/genai` } });
    const response = await ai.models.generateContent({ model: "openai/gpt-4o-mini", contents: "via goog key" });
    expect(response.text).toBe("echo: via goog key");
  });

  test("x-gw-vk carries it on any route", async () => {
    const key = await createVirtualKey(enforced, { name: "header" });
    expect((await chat(enforced, key.value)).status).toBe(200);
  });
});
