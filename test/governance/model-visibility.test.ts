import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { createVirtualKey, openAIProvider } from "./support";

let upstream: MockOpenAI;
let gw: TestGateway;
let enforced: TestGateway;

const EVERY_MODEL = ["groq/llama-3.1-8b-instant", "openai/gpt-4o", "openai/gpt-4o-mini", "openai/o3"];

/** openai's k1 serves the GPT-4o models, k2 and k3 serve o3 (a key allowed one of them sees it); groq serves one model. */
const providers = () => ({
  openai: openAIProvider(upstream, [
    { id: "k1", models: ["gpt-4o-mini", "gpt-4o"] },
    { id: "k2", models: ["o3"] },
    { id: "k3", models: ["o3"] },
  ]),
  groq: openAIProvider(upstream, [{ id: "g1", models: ["llama-3.1-8b-instant"] }]),
});

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({ providers: providers() });
  enforced = await startGateway({ enforce_auth_on_inference: true, providers: providers() });
});
afterAll(async () => {
  await gw.close();
  await enforced.close();
  upstream.stop();
});

const openAIClient = (apiKey = "sk-not-a-virtual-key", gateway = gw) => new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey, maxRetries: 0 });

async function listedIds(apiKey?: string): Promise<string[]> {
  const page = await openAIClient(apiKey).models.list();
  return page.data.map((model) => model.id).sort();
}

describe("a model listing shows what the caller's virtual key may use", () => {
  test("without a virtual key, or with one that restricts nothing, every configured model is listed", async () => {
    expect(await listedIds()).toEqual(EVERY_MODEL);
    const unrestricted = await createVirtualKey(gw, { name: "lists-everything" });
    expect(await listedIds(unrestricted.value)).toEqual(EVERY_MODEL);
  });

  test("a key's allowed providers and models narrow the list, and retrieve answers 404 for the rest", async () => {
    const key = await createVirtualKey(gw, { name: "mini-only", provider_configs: [{ provider: "openai", allowed_models: ["gpt-4o-mini"] }] });
    expect(await listedIds(key.value)).toEqual(["openai/gpt-4o-mini"]);
    const client = openAIClient(key.value);
    expect((await client.models.retrieve("openai/gpt-4o-mini")).id).toBe("openai/gpt-4o-mini");
    expect(await client.models.retrieve("openai/gpt-4o").catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
    expect(await client.models.retrieve("groq/llama-3.1-8b-instant").catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
  });

  test("a key held to some provider keys lists only the models those keys serve", async () => {
    const key = await createVirtualKey(gw, { name: "k2-and-groq", provider_configs: [{ provider: "openai", key_ids: ["k2"] }, { provider: "groq" }] });
    expect(await listedIds(key.value)).toEqual(["groq/llama-3.1-8b-instant", "openai/o3"]);
    expect(await openAIClient(key.value).models.retrieve("openai/gpt-4o").catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
  });

  test("the Anthropic and Google GenAI mounts list the same models for the key", async () => {
    const key = await createVirtualKey(gw, { name: "groq-only", provider_configs: [{ provider: "groq" }] });
    const anthropic = new Anthropic({ baseURL: `${gw.url}/anthropic`, apiKey: key.value, maxRetries: 0 });
    const anthropicIds: string[] = [];
    for await (const model of anthropic.models.list()) anthropicIds.push(model.id);
    expect(anthropicIds).toEqual(["groq/llama-3.1-8b-instant"]);
    expect(await anthropic.models.retrieve("openai/o3").catch((error: unknown) => error)).toBeInstanceOf(Anthropic.NotFoundError);

    const genai = new GoogleGenAI({ apiKey: key.value, httpOptions: { baseUrl: `${gw.url}/genai` } });
    const genaiNames: string[] = [];
    for await (const model of await genai.models.list()) genaiNames.push(model.name!);
    expect(genaiNames).toEqual(["models/groq/llama-3.1-8b-instant"]);
    const hidden = await fetch(`${gw.url}/genai/v1beta/models/openai%2Fo3`, { headers: { "x-goog-api-key": key.value } });
    expect(hidden.status).toBe(404);
  });
});

describe("a model listing checks the virtual key as inference does", () => {
  test("an unknown virtual key is a 401 and an inactive one a 403", async () => {
    await expectGatewayError(await fetch(`${gw.url}/v1/models`, { headers: { "x-gw-vk": "sk-gw-unknown" } }), 401, { errorType: "caller_virtual_key_invalid" });
    const key = await createVirtualKey(gw, { name: "switched-off", is_active: false });
    await expectGatewayError(await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${key.value}` } }), 403, { errorType: "caller_virtual_key_inactive" });
  });

  test("a deployment that requires virtual keys lists nothing without one", async () => {
    await expectGatewayError(await fetch(`${enforced.url}/v1/models`), 401, { errorType: "caller_virtual_key_required" });
    await expectGatewayError(await fetch(`${enforced.url}/anthropic/v1/models`), 401, { errorType: "caller_virtual_key_required" });
    await expectGatewayError(await fetch(`${enforced.url}/genai/v1beta/models/openai%2Fo3`), 401, { errorType: "caller_virtual_key_required" });
    const key = await createVirtualKey(enforced, { name: "enforced-lister", provider_configs: [{ provider: "openai", key_ids: ["k1"] }] });
    const page = await openAIClient(key.value, enforced).models.list();
    expect(page.data.map((model) => model.id).sort()).toEqual(["openai/gpt-4o", "openai/gpt-4o-mini"]);
  });
});
