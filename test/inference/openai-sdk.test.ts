import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, mockEmbedding, startMockOpenAI } from "../support/mock-openai";

let upstream: MockOpenAI;
let gw: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({ providers: { openai: { keys: [{ id: "k1", value: "sk-upstream-secret-0001" }], network_config: { base_url: upstream.baseUrl } } } });
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

describe("OpenAI SDK against /v1", () => {
  test("chat completion reaches the provider with the model's provider prefix removed and the key as bearer", async () => {
    const completion = await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hello there" }] });
    expect(completion.choices[0]!.message.content).toBe("echo: hello there");
    const sent = upstream.requests.at(-1)!;
    expect(sent.path).toBe("/v1/chat/completions");
    expect(sent.body.model).toBe("gpt-4o-mini");
    expect(sent.headers.get("authorization")).toBe("Bearer sk-upstream-secret-0001");
  });

  test("streamed chat arrives chunk by chunk with usage in the final chunk when asked", async () => {
    const stream = await client.chat.completions.create({
      model: "openai/gpt-4o-mini",
      messages: [{ role: "user", content: "one two three" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let chunks = 0;
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      chunks++;
      text += chunk.choices[0]?.delta.content ?? "";
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe("echo: one two three");
    expect(chunks).toBeGreaterThan(3);
    expect(usage?.total_tokens).toBeGreaterThan(0);
  });

  test("tools: the model's tool call comes back in OpenAI's shape", async () => {
    const completion = await client.chat.completions.create({
      model: "openai/gpt-4o-mini",
      messages: [{ role: "user", content: "what is the weather?" }],
      tools: [{ type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }],
    });
    const call = completion.choices[0]!.message.tool_calls![0]!;
    expect(completion.choices[0]!.finish_reason).toBe("tool_calls");
    expect(call.type === "function" && call.function.name).toBe("get_weather");
    expect(upstream.requests.at(-1)!.body.tools).toHaveLength(1);
  });

  test("response_format is passed to the provider", async () => {
    const completion = await client.chat.completions.create({
      model: "openai/gpt-4o-mini",
      messages: [{ role: "user", content: "json please" }],
      response_format: { type: "json_object" },
    });
    expect(JSON.parse(completion.choices[0]!.message.content!)).toEqual({ answer: "echo: json please" });
    expect(upstream.requests.at(-1)!.body.response_format).toEqual({ type: "json_object" });
  });

  test("embeddings", async () => {
    const result = await client.embeddings.create({ model: "openai/text-embedding-3-small", input: ["alpha", "beta"] });
    const asFloat32 = (vector: number[]) => Array.from(new Float32Array(vector));
    expect(result.data.map((row) => row.embedding)).toEqual([asFloat32(mockEmbedding("alpha")), asFloat32(mockEmbedding("beta"))]);
  });

  test("legacy completions", async () => {
    const result = await client.completions.create({ model: "openai/gpt-3.5-turbo-instruct", prompt: "say hi" });
    expect(result.choices[0]!.text).toBe("echo: say hi");
  });

  test("responses API, JSON and streamed", async () => {
    const response = await client.responses.create({ model: "openai/gpt-4o-mini", input: "ping" });
    expect(response.output_text).toBe("echo: ping");
    const stream = await client.responses.create({ model: "openai/gpt-4o-mini", input: "pong now", stream: true });
    let text = "";
    let completed = false;
    for await (const event of stream) {
      if (event.type === "response.output_text.delta") text += event.delta;
      if (event.type === "response.completed") completed = true;
    }
    expect(text).toBe("echo: pong now");
    expect(completed).toBe(true);
  });

  test("models lists what the configured keys name", async () => {
    await gw.admin("/api/providers/openai/keys/k1", { method: "PUT", json: { value: "sk-upstream-secret-0001", models: ["gpt-4o-mini", "regex:gpt-4.*"], aliases: { fast: "gpt-4o-mini" } } });
    const models = await client.models.list();
    expect(models.data.map((model) => model.id).sort()).toEqual(["openai/fast", "openai/gpt-4o-mini"]);
  });

  test("models.retrieve answers for a model a key serves, by name, pattern or on a mount, and 404 for one none does", async () => {
    await gw.admin("/api/providers/openai/keys/k1", { method: "PUT", json: { value: "sk-upstream-secret-0001", models: ["gpt-4o-mini", "regex:gpt-4.*"] } });
    expect(await client.models.retrieve("openai/gpt-4o-mini")).toMatchObject({ id: "openai/gpt-4o-mini", object: "model", owned_by: "openai" });
    expect((await client.models.retrieve("openai/gpt-4.1")).id).toBe("openai/gpt-4.1");
    const mounted = new OpenAI({ baseURL: `${gw.url}/openai/v1`, apiKey: "unused", maxRetries: 0 });
    expect((await mounted.models.retrieve("gpt-4o-mini")).owned_by).toBe("openai");
    expect(await client.models.retrieve("openai/o3").catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
    expect(await client.models.retrieve("nowhere/model").catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
    await expectGatewayError(await fetch(`${gw.url}/v1/models/openai%2Fgpt%E0%A4%A`), 400, { param: "model" });
  });
});

describe("OpenAI-format mounts", () => {
  test("/openai/v1 answers a bare model name with the openai provider", async () => {
    const mounted = new OpenAI({ baseURL: `${gw.url}/openai/v1`, apiKey: "unused", maxRetries: 0 });
    const completion = await mounted.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "via mount" }] });
    expect(completion.choices[0]!.message.content).toBe("echo: via mount");
    expect(upstream.requests.at(-1)!.body.model).toBe("gpt-4o-mini");
  });

  for (const framework of ["litellm", "langchain", "pydanticai"]) {
    test(`/${framework}/v1 speaks OpenAI format`, async () => {
      const mounted = new OpenAI({ baseURL: `${gw.url}/${framework}/v1`, apiKey: "unused", maxRetries: 0 });
      const completion = await mounted.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: framework }] });
      expect(completion.choices[0]!.message.content).toBe(`echo: ${framework}`);
    });
  }

  test("a root that is no framework is a 404, before its body is read", async () => {
    for (const root of ["crewai", "v1", "mcp"]) {
      const response = await fetch(`${gw.url}/${root}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      await expectGatewayError(response, 404, { errorType: "caller_route_not_found" });
    }
  });
});
