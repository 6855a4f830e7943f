import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { expectGatewayError, postJson } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

/**
 * OpenAI-format servers that have no Responses API of their own (an older vLLM or Ollama, most
 * hosted open-model APIs) still serve the Agents SDK's and Codex's Responses calls: the gateway
 * finds the endpoint missing, runs the call as a chat and remembers that model.
 */

let oldServer: MockOpenAI;
let azureUpstream: MockOpenAI;
let gw: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  oldServer = startMockOpenAI();
  oldServer.missingRoutes = ["/responses"];
  oldServer.missingModels = ["gone-model"];
  azureUpstream = startMockOpenAI();
  gw = await startGateway({
    providers: {
      localserver: { keys: [{ id: "local", value: "sk-local" }], network_config: { base_url: oldServer.baseUrl }, custom_provider_config: { base_provider_type: "openai" } },
      azure: { keys: [{ id: "az", value: "azure-api-key-0001", azure_key_config: { endpoint: azureUpstream.url, api_version: "2024-10-21", deployments: { "gpt-4o": "prod-gpt4o" } } }] },
    },
  });
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  oldServer.stop();
  azureUpstream.stop();
});

/** The paths the old server was asked while `run` ran. */
async function pathsAskedDuring(run: () => Promise<unknown>): Promise<string[]> {
  const before = oldServer.requests.length;
  await run().catch(() => undefined);
  return oldServer.requests.slice(before).map((request) => request.path);
}

describe("a server without the Responses API", () => {
  test("answers the first call through its chat, and the next ones go straight there, streamed or not", async () => {
    let first: OpenAI.Responses.Response | undefined;
    expect(await pathsAskedDuring(async () => (first = await client.responses.create({ model: "localserver/local-model", input: "one two three" })))).toEqual(["/v1/responses", "/v1/chat/completions"]);
    expect(first!.output_text).toBe("echo: one two three");
    expect(first!.usage).toMatchObject({ input_tokens: 3, output_tokens: 4 });

    let streamed: OpenAI.Responses.Response | undefined;
    expect(await pathsAskedDuring(async () => (streamed = await client.responses.stream({ model: "localserver/local-model", input: "four five" }).finalResponse()))).toEqual(["/v1/chat/completions"]);
    expect(streamed!.output_text).toBe("echo: four five");
  });

  test("is remembered per model: another model on the same server is tried on its Responses API first", async () => {
    expect(await pathsAskedDuring(() => client.responses.create({ model: "localserver/another-model", input: "six" }))).toEqual(["/v1/responses", "/v1/chat/completions"]);
  });

  test("is remembered across a change of the provider's settings that keeps its address", async () => {
    await client.responses.create({ model: "localserver/kept-model", input: "one" });
    const changed = await gw.admin("/api/providers/localserver", { method: "PUT", json: { network_config: { base_url: oldServer.baseUrl, max_retries: 1 } } });
    expect(changed.status).toBe(200);
    expect(await pathsAskedDuring(() => client.responses.create({ model: "localserver/kept-model", input: "two" }))).toEqual(["/v1/chat/completions"]);
  });

  test("a model the server does not have keeps its 404, and is not taken for one without the API", async () => {
    const call = () => client.responses.create({ model: "localserver/gone-model", input: "hello" });
    const error = await call().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as InstanceType<typeof OpenAI.NotFoundError>).message).toContain("gone-model");
    expect(await pathsAskedDuring(call)).toEqual(["/v1/responses", "/v1/chat/completions"]);
  });

  test("what only a Responses API can do gets a 400 naming the field once the model is known to lack it", async () => {
    const response = await postJson(`${gw.url}/v1/responses`, { model: "localserver/local-model", input: "and then?", previous_response_id: "resp_123" });
    await expectGatewayError(response, 400, { param: "previous_response_id" });
  });

  test("a call the bridge cannot carry is a 400 saying why, not the server's 404 that clients retry", async () => {
    const before = oldServer.requests.length;
    const response = await postJson(`${gw.url}/v1/responses`, { model: "localserver/fresh-model", input: "and then?", previous_response_id: "resp_123" });
    const body = await expectGatewayError(response, 400, { param: "previous_response_id" });
    expect(body.error.message).toContain("provider 'localserver' has no Responses API (its /responses answered 404)");
    expect(body.error.message).toContain("resp_123");
    expect(oldServer.requests.slice(before).map((request) => request.path)).toEqual(["/v1/responses"]);
  });
});

describe("Azure's Responses API", () => {
  test("is called on Azure's v1 surface, the deployment named as the model", async () => {
    const response = await client.responses.create({ model: "azure/gpt-4o", input: "one two three" });
    expect(response.output_text).toContain("one two three");
    const sent = azureUpstream.requests.at(-1)!;
    expect(sent.path).toBe("/openai/v1/responses");
    expect(sent.body.model).toBe("prod-gpt4o");
    expect(sent.headers.get("api-key")).toBe("azure-api-key-0001");
  });
});
