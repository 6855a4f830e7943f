import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { expectGatewayError, postJson } from "../support/gateway-error";
import { ANTHROPIC_UPSTREAM_KEY, type AnthropicFixture, startAnthropicFixture } from "./fixture";

let fixture: AnthropicFixture;
let client: Anthropic;
/** The headers the SDK itself sent, so the test can compare what reached the upstream. */
const sentByClient: Headers[] = [];

const weatherTool = { name: "get_weather", description: "Current weather", input_schema: { type: "object" as const, properties: { city: { type: "string" } } } };

beforeAll(async () => {
  fixture = await startAnthropicFixture();
  const recordingFetch: typeof fetch = Object.assign((input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    sentByClient.push(new Headers(init?.headers));
    return fetch(input, init);
  }, fetch);
  client = new Anthropic({ baseURL: `${fixture.gw.url}/anthropic`, apiKey: "sk-client-side-key", maxRetries: 0, fetch: recordingFetch });
});
afterAll(() => fixture.close());

const lastUpstream = () => fixture.anthropicUpstream.requests.at(-1)!;

describe("Anthropic SDK against /anthropic/v1/messages", () => {
  test("create reaches Anthropic at /v1/messages with the provider key in place of the client's bearer, the SDK's anthropic-version and the bare model", async () => {
    const message = await client.messages.create({ model: "claude-sonnet-5-5", max_tokens: 256, messages: [{ role: "user", content: "hello there" }] });
    expect(message.content).toMatchObject([{ type: "text", text: "echo: hello there" }]);
    expect(message.stop_reason).toBe("end_turn");
    expect(message.usage.input_tokens).toBe(2);
    const sent = lastUpstream();
    expect(sent.path).toBe("/v1/messages");
    expect(sent.headers.get("x-api-key")).toBe(ANTHROPIC_UPSTREAM_KEY);
    expect(sent.headers.get("anthropic-version")).toBe(sentByClient.at(-1)!.get("anthropic-version")!);
    expect(sentByClient.at(-1)!.get("authorization")).toBe("Bearer sk-client-side-key");
    expect(sent.headers.get("authorization")).toBeNull();
    expect(sent.body.model).toBe("claude-sonnet-5-5");
  });

  test("the body passes through untouched apart from the model, so fields the gateway does not know arrive", async () => {
    await client.messages.create({
      model: "anthropic/claude-sonnet-5-5",
      max_tokens: 64,
      system: [{ type: "text", text: "You are terse.", cache_control: { type: "ephemeral", ttl: "1h" } }],
      messages: [{ role: "user", content: "hi" }],
      metadata: { user_id: "user-42" },
      service_tier: "auto",
    });
    const sent = lastUpstream().body;
    expect(sent.model).toBe("claude-sonnet-5-5");
    expect(sent.system).toEqual([{ type: "text", text: "You are terse.", cache_control: { type: "ephemeral", ttl: "1h" } }]);
    expect(sent.metadata).toEqual({ user_id: "user-42" });
    expect(sent.service_tier).toBe("auto");
  });

  test("usage reports cache writes with their TTL split, then cache reads", async () => {
    const request = {
      model: "claude-sonnet-5-5",
      max_tokens: 64,
      system: [{ type: "text" as const, text: "a long shared preamble for caching", cache_control: { type: "ephemeral" as const, ttl: "1h" as const } }],
      messages: [{ role: "user" as const, content: "first" }],
    };
    const first = await client.messages.create(request);
    expect(first.usage.cache_creation_input_tokens).toBe(6);
    expect(first.usage.cache_creation).toEqual({ ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 6 });
    const second = await client.messages.create(request);
    expect(second.usage.cache_read_input_tokens).toBe(6);
    expect(second.usage.cache_creation_input_tokens).toBe(0);
  });

  test("streaming delivers thinking with its signature, redacted thinking and text, event by event", async () => {
    const stream = client.messages.stream({
      model: "claude-sonnet-5-5",
      max_tokens: 2048,
      thinking: { type: "enabled", budget_tokens: 1024 },
      messages: [{ role: "user", content: "think about redacted things" }],
    });
    const eventTypes: string[] = [];
    for await (const event of stream) eventTypes.push(event.type === "content_block_delta" ? event.delta.type : event.type);
    const message = await stream.finalMessage();
    expect(eventTypes[0]).toBe("message_start");
    expect(eventTypes).toContain("thinking_delta");
    expect(eventTypes).toContain("signature_delta");
    expect(eventTypes.at(-1)).toBe("message_stop");
    expect(message.content.map((block) => block.type)).toEqual(["thinking", "redacted_thinking", "text"]);
    const thinking = message.content[0] as Anthropic.ThinkingBlock;
    expect(thinking.thinking).toBe("Considering: think about redacted things");
    expect(thinking.signature).toBe(`sig-${Buffer.from("think about redacted things").toString("base64")}`);
    expect(message.stop_reason).toBe("end_turn");
  });

  test("tools: a streamed tool_use arrives as input_json_delta events and parses into the tool input", async () => {
    const stream = client.messages.stream({ model: "claude-sonnet-5-5", max_tokens: 256, tools: [weatherTool], messages: [{ role: "user", content: "what is the weather?" }] });
    const partials: string[] = [];
    stream.on("inputJson", (partial) => partials.push(partial));
    const message = await stream.finalMessage();
    expect(partials.length).toBeGreaterThan(1);
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content).toMatchObject([{ type: "tool_use", id: "toolu_mock_1", name: "get_weather", input: { city: "Paris" } }]);
  });

  test("tools: the tool result goes back and the model answers from it", async () => {
    const message = await client.messages.create({
      model: "claude-sonnet-5-5",
      max_tokens: 256,
      tools: [weatherTool],
      messages: [
        { role: "user", content: "what is the weather?" },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_mock_1", name: "get_weather", input: { city: "Paris" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_mock_1", content: "sunny, 21C" }] },
      ],
    });
    expect(message.content).toMatchObject([{ type: "text", text: "tool said: sunny, 21C" }]);
  });

  test("count_tokens is answered by Anthropic's own counting endpoint", async () => {
    const counted = await client.messages.countTokens({ model: "claude-sonnet-5-5", messages: [{ role: "user", content: "one two three four" }] });
    expect(counted.input_tokens).toBe(4);
    expect(lastUpstream().path).toBe("/v1/messages/count_tokens");
    expect(lastUpstream().headers.get("x-api-key")).toBe(ANTHROPIC_UPSTREAM_KEY);
  });

  test("anthropic-beta and a client's anthropic-version are forwarded, so beta features (MCP servers) pass", async () => {
    await client.beta.messages.create(
      {
        model: "claude-sonnet-5-5",
        max_tokens: 64,
        betas: ["mcp-client-2025-04-04"],
        mcp_servers: [{ type: "url", url: "https://mcp.example.com/sse", name: "example" }],
        messages: [{ role: "user", content: "use the mcp server" }],
      },
      { headers: { "anthropic-version": "2024-01-01" } },
    );
    const sent = lastUpstream();
    expect(sent.headers.get("anthropic-beta")).toBe("mcp-client-2025-04-04");
    expect(sent.headers.get("anthropic-version")).toBe("2024-01-01");
    expect(sent.body.mcp_servers).toEqual([{ type: "url", url: "https://mcp.example.com/sse", name: "example" }]);
  });

  test("a virtual key in x-api-key (as older SDKs and editors send it) is accepted and never forwarded", async () => {
    const created = await fixture.gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name: "editor" } });
    const { virtual_key } = (await created.json()) as { virtual_key: { value: string } };
    const keyed = new Anthropic({ baseURL: `${fixture.gw.url}/anthropic`, apiKey: null, authToken: null, defaultHeaders: { "x-api-key": virtual_key.value }, maxRetries: 0 });
    const message = await keyed.messages.create({ model: "claude-sonnet-5-5", max_tokens: 64, messages: [{ role: "user", content: "keyed" }] });
    expect(message.content).toMatchObject([{ type: "text", text: "echo: keyed" }]);
    expect(lastUpstream().headers.get("x-api-key")).toBe(ANTHROPIC_UPSTREAM_KEY);
  });

  test("models are listed in Anthropic's page shape", async () => {
    await fixture.gw.admin("/api/providers/anthropic/keys/ant-1", { method: "PUT", json: { value: ANTHROPIC_UPSTREAM_KEY, models: ["claude-sonnet-5-5", "regex:claude-.*"] } });
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual(["anthropic/claude-sonnet-5-5"]);
    expect(await client.models.retrieve("anthropic/claude-opus-9")).toMatchObject({ type: "model", id: "anthropic/claude-opus-9" });
    expect(await client.models.retrieve("anthropic/gpt-4o").catch((error: unknown) => error)).toBeInstanceOf(Anthropic.NotFoundError);
    await fixture.gw.admin("/api/providers/anthropic/keys/ant-1", { method: "PUT", json: { value: ANTHROPIC_UPSTREAM_KEY } });
  });
});

describe("Spec 4.16: the messages wildcard /v1/messages/{path}", () => {
  test("batches reach Anthropic's /v1/messages/batches and answer in its shape", async () => {
    const batch = await client.messages.batches.create({
      requests: [{ custom_id: "one", params: { model: "claude-sonnet-5-5", max_tokens: 16, messages: [{ role: "user", content: "hi" }] } }],
    });
    expect(batch.type).toBe("message_batch");
    expect(batch.request_counts.processing).toBe(1);
    expect(lastUpstream().path).toBe("/v1/messages/batches");
    expect(lastUpstream().headers.get("x-api-key")).toBe(ANTHROPIC_UPSTREAM_KEY);
    expect(lastUpstream().body.model).toBeUndefined();
  });

  test("a path that is no endpoint is Anthropic's 404, passed on", async () => {
    const response = await postJson(`${fixture.gw.url}/anthropic/v1/messages/no_such_endpoint`, { model: "claude-sonnet-5-5" });
    const body = await expectGatewayError(response, 404, { errorType: "provider_not_found" });
    expect(body.error.message).toContain("/v1/messages/no_such_endpoint");
  });

  test("the editor mount /claude-code serves messages, count_tokens and the wildcard", async () => {
    const editor = new Anthropic({ baseURL: `${fixture.gw.url}/claude-code`, apiKey: "sk-editor", maxRetries: 0 });
    const message = await editor.messages.create({ model: "claude-sonnet-5-5", max_tokens: 64, messages: [{ role: "user", content: "from the editor" }] });
    expect(message.content).toMatchObject([{ type: "text", text: "echo: from the editor" }]);
    expect((await editor.messages.countTokens({ model: "claude-sonnet-5-5", messages: [{ role: "user", content: "two words" }] })).input_tokens).toBe(2);
    const batch = await editor.messages.batches.create({ requests: [{ custom_id: "a", params: { model: "claude-sonnet-5-5", max_tokens: 8, messages: [{ role: "user", content: "x" }] } }] });
    expect(batch.id).toStartWith("msgbatch_");
  });

  test("framework mounts serve the Anthropic format beneath them", async () => {
    for (const framework of ["litellm", "langchain", "pydanticai"]) {
      const mounted = new Anthropic({ baseURL: `${fixture.gw.url}/${framework}/anthropic`, apiKey: "unused", maxRetries: 0 });
      const message = await mounted.messages.create({ model: "claude-sonnet-5-5", max_tokens: 64, messages: [{ role: "user", content: framework }] });
      expect(message.content).toMatchObject([{ type: "text", text: `echo: ${framework}` }]);
    }
  });
});

describe("legacy /anthropic/v1/complete", () => {
  test("a text completion reaches Anthropic's /v1/complete", async () => {
    const response = await postJson(`${fixture.gw.url}/anthropic/v1/complete`, { model: "claude-2.1", prompt: "\n\nHuman: say hi\n\nAssistant:", max_tokens_to_sample: 32 }, { "x-api-key": "client" });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ type: "completion", completion: " echo: say hi", stop_reason: "stop_sequence" });
    expect(lastUpstream().path).toBe("/v1/complete");
  });
});

describe("validation: bad input is a 400 naming the field", () => {
  test("a missing max_tokens", async () => {
    const response = await postJson(`${fixture.gw.url}/anthropic/v1/messages`, { model: "claude-sonnet-5-5", messages: [{ role: "user", content: "hi" }] });
    await expectGatewayError(response, 400, { param: "max_tokens", errorType: "caller_invalid_request" });
  });

  test("a max_tokens written as a string is refused, not converted", async () => {
    const response = await postJson(`${fixture.gw.url}/anthropic/v1/messages`, { model: "claude-sonnet-5-5", max_tokens: "16", messages: [{ role: "user", content: "hi" }] });
    await expectGatewayError(response, 400, { param: "max_tokens", errorType: "caller_invalid_request" });
  });

  test("a message whose role is not a string (any string is Anthropic's to judge: see system-messages.test.ts)", async () => {
    const response = await postJson(`${fixture.gw.url}/anthropic/v1/messages`, { model: "claude-sonnet-5-5", max_tokens: 8, messages: [{ role: ["user"], content: "hi" }] });
    await expectGatewayError(response, 400, { param: "messages[0].role" });
  });

  test("a temperature outside 0..1", async () => {
    const response = await postJson(`${fixture.gw.url}/anthropic/v1/messages`, { model: "claude-sonnet-5-5", max_tokens: 8, temperature: 1.5, messages: [{ role: "user", content: "hi" }] });
    await expectGatewayError(response, 400, { param: "temperature" });
  });
});
