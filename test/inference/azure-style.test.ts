import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI, { AzureOpenAI } from "openai";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

/**
 * Clients built for Azure OpenAI (the SDK's AzureOpenAI, LangChain's AzureChatOpenAI) call
 * `{endpoint}/openai/deployments/{deployment}/...?api-version=…` with the key in `api-key`. With
 * the gateway's /openai mount as their endpoint they work unchanged: the deployment names the model.
 */

let openaiUpstream: MockOpenAI;
let azureUpstream: MockOpenAI;
let gw: TestGateway;
let virtualKey: string;

beforeAll(async () => {
  openaiUpstream = startMockOpenAI();
  azureUpstream = startMockOpenAI();
  gw = await startGateway({
    enforce_auth_on_inference: true,
    providers: {
      openai: { keys: [{ id: "oa", value: "sk-openai-upstream", models: ["gpt-4o-mini", "text-embedding-3-small"] }], network_config: { base_url: openaiUpstream.baseUrl } },
      azure: { keys: [{ id: "az", value: "azure-upstream-key", azure_key_config: { endpoint: azureUpstream.url, api_version: "2024-10-21", deployments: { "gpt-4o": "prod-gpt4o" } } }] },
    },
  });
  const created = await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name: "azure-style" } });
  virtualKey = ((await created.json()) as { virtual_key: { value: string } }).virtual_key.value;
});
afterAll(async () => {
  await gw.close();
  openaiUpstream.stop();
  azureUpstream.stop();
});

const azureClient = (deployment: string, apiKey = virtualKey) => new AzureOpenAI({ endpoint: `${gw.url}/openai`, apiKey, apiVersion: "2024-10-21", deployment, maxRetries: 0 });

describe("Azure OpenAI's paths on the /openai mount", () => {
  test("a deployment a key lists reaches that provider, with the virtual key taken from api-key", async () => {
    const completion = await azureClient("gpt-4o-mini").chat.completions.create({ model: "", messages: [{ role: "user", content: "via azure paths" }] });
    expect(completion.choices[0]!.message.content).toBe("echo: via azure paths");
    expect(openaiUpstream.requests.at(-1)!.body.model).toBe("gpt-4o-mini");
  });

  test("any other deployment goes to the Azure provider, through its own deployments map", async () => {
    const completion = await azureClient("gpt-4o").chat.completions.create({ model: "", messages: [{ role: "user", content: "to azure" }] });
    expect(completion.choices[0]!.message.content).toBe("echo: to azure");
    expect(azureUpstream.requests.at(-1)!.path).toStartWith("/openai/deployments/prod-gpt4o/chat/completions");
  });

  test("streams and embeddings work the same way", async () => {
    let text = "";
    for await (const chunk of await azureClient("gpt-4o-mini").chat.completions.create({ model: "", messages: [{ role: "user", content: "one two" }], stream: true })) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe("echo: one two");
    const embedded = await azureClient("text-embedding-3-small").embeddings.create({ model: "", input: "vector me" });
    expect(embedded.data[0]!.embedding.length).toBeGreaterThan(0);
  });

  test("a provider/model escaped into the deployment names both", async () => {
    const response = await fetch(`${gw.url}/openai/openai/deployments/openai%2Fgpt-4o-mini/chat/completions?api-version=2024-10-21`, {
      method: "POST",
      headers: { "content-type": "application/json", "api-key": virtualKey },
      body: JSON.stringify({ messages: [{ role: "user", content: "escaped" }] }),
    });
    expect(response.status).toBe(200);
    expect(openaiUpstream.requests.at(-1)!.body.model).toBe("gpt-4o-mini");
  });

  test("without a virtual key the call is refused, as on every inference route", async () => {
    const refused = await azureClient("gpt-4o-mini", "not-a-virtual-key").chat.completions.create({ model: "", messages: [{ role: "user", content: "x" }] }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
  });
});
