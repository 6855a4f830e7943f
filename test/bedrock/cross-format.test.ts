import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand, type ConverseStreamOutput, type Message, type ToolConfiguration } from "@aws-sdk/client-bedrock-runtime";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import OpenAI from "openai";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockBedrock, type MockBedrockAuth, startMockBedrock } from "../support/mock-bedrock";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

const AUTH: MockBedrockAuth = {
  accessKeyId: "AKIAMOCKCROSSFORMAT",
  secretAccessKey: "cross-format-secret-key-0123456789",
  sessionToken: "cross-format-session-token",
  region: "us-west-2",
  apiKey: "unused",
};
const BEDROCK_MODEL = "bedrock/anthropic.claude-3-5-sonnet-20240620-v1:0";
const WEATHER_TOOL = { name: "get_weather", description: "weather by city", schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } };

let bedrockUpstream: MockBedrock;
let openaiUpstream: MockOpenAI;
let gw: TestGateway;
let aws: BedrockRuntimeClient;
let openai: OpenAI;

beforeAll(async () => {
  bedrockUpstream = startMockBedrock(AUTH);
  openaiUpstream = startMockOpenAI();
  gw = await startGateway({
    providers: {
      bedrock: {
        keys: [{ id: "aws", models: ["*"], bedrock_key_config: { access_key: AUTH.accessKeyId, secret_key: AUTH.secretAccessKey, session_token: AUTH.sessionToken, region: AUTH.region } }],
        network_config: { base_url: bedrockUpstream.url },
      },
      openai: { keys: [{ id: "oa", value: "sk-cross-format-0001", models: ["*"] }], network_config: { base_url: openaiUpstream.baseUrl } },
    },
  });
  aws = new BedrockRuntimeClient({
    endpoint: `${gw.url}/bedrock`,
    region: "us-east-1",
    credentials: { accessKeyId: "AKIACLIENTDUMMY", secretAccessKey: "client-dummy-secret" },
    requestHandler: new NodeHttpHandler(),
    maxAttempts: 1,
  });
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  bedrockUpstream.stop();
  openaiUpstream.stop();
});

const userSays = (text: string): Message => ({ role: "user", content: [{ text }] });
const bedrockTools: ToolConfiguration = { tools: [{ toolSpec: { name: WEATHER_TOOL.name, description: WEATHER_TOOL.description, inputSchema: { json: WEATHER_TOOL.schema } } }] };
const openaiTools: OpenAI.ChatCompletionTool[] = [{ type: "function", function: { name: WEATHER_TOOL.name, description: WEATHER_TOOL.description, parameters: WEATHER_TOOL.schema } }];

async function events(stream: AsyncIterable<ConverseStreamOutput> | undefined) {
  const all: ConverseStreamOutput[] = [];
  for await (const event of stream ?? []) all.push(event);
  return all;
}

describe("the AWS SDK reaching an OpenAI-family model through Converse", () => {
  test("converseStream: the OpenAI stream arrives as Bedrock events, with stop reason and usage", async () => {
    const reply = await aws.send(
      new ConverseStreamCommand({ modelId: "openai/gpt-4o-mini", system: [{ text: "be brief" }], messages: [userSays("one two three")], inferenceConfig: { maxTokens: 64, temperature: 0.2 } }),
    );
    const all = await events(reply.stream);
    expect(all[0]?.messageStart?.role).toBe("assistant");
    expect(all.map((event) => event.contentBlockDelta?.delta?.text ?? "").join("")).toBe("echo: one two three");
    expect(all.find((event) => event.messageStop)?.messageStop?.stopReason).toBe("end_turn");
    expect(all.at(-1)?.metadata?.usage).toEqual({ inputTokens: 3, outputTokens: 4, totalTokens: 7 });
    const sent = openaiUpstream.requests.at(-1)!;
    expect(sent.body).toMatchObject({ model: "gpt-4o-mini", stream: true, max_tokens: 64, temperature: 0.2, messages: [{ role: "system", content: "be brief" }, { role: "user", content: "one two three" }] });
    expect(sent.headers.get("authorization")).toBe("Bearer sk-cross-format-0001");
  });

  test("converseStream with tools: the tool call arrives as contentBlockStart and input deltas", async () => {
    const reply = await aws.send(new ConverseStreamCommand({ modelId: "openai/gpt-4o-mini", messages: [userSays("what is the weather?")], toolConfig: bedrockTools }));
    const all = await events(reply.stream);
    const start = all.find((event) => event.contentBlockStart)!.contentBlockStart!;
    expect(start.start?.toolUse).toEqual({ toolUseId: "call_mock_1", name: "get_weather" });
    const input = all.filter((event) => event.contentBlockDelta?.contentBlockIndex === start.contentBlockIndex).map((event) => event.contentBlockDelta!.delta!.toolUse?.input ?? "").join("");
    expect(JSON.parse(input)).toEqual({ city: "Paris" });
    expect(all.find((event) => event.messageStop)?.messageStop?.stopReason).toBe("tool_use");
  });

  test("converse with tools: toolUse comes back, and the next turn's toolResult reaches OpenAI as a tool message", async () => {
    const question = userSays("what is the weather?");
    const first = await aws.send(new ConverseCommand({ modelId: "openai/gpt-4o-mini", messages: [question], toolConfig: { ...bedrockTools, toolChoice: { any: {} } } }));
    expect(first.stopReason).toBe("tool_use");
    expect(openaiUpstream.requests.at(-1)!.body.tool_choice).toBe("required");
    const toolUse = first.output!.message!.content!.find((block) => block.toolUse)!.toolUse!;
    expect(toolUse).toMatchObject({ name: "get_weather", input: { city: "Paris" } });
    const toolResult = { role: "user" as const, content: [{ toolResult: { toolUseId: toolUse.toolUseId, content: [{ text: "sunny" }] } }] };
    await aws.send(new ConverseCommand({ modelId: "openai/gpt-4o-mini", messages: [question, first.output!.message!, toolResult], toolConfig: bedrockTools }));
    const messages = openaiUpstream.requests.at(-1)!.body.messages as Array<Record<string, unknown>>;
    expect(messages.at(-2)).toMatchObject({ role: "assistant", tool_calls: [{ id: toolUse.toolUseId, function: { name: "get_weather" } }] });
    expect(messages.at(-1)).toEqual({ role: "tool", tool_call_id: toolUse.toolUseId, content: "sunny" });
  });
});

describe("the OpenAI SDK reaching a Bedrock model", () => {
  test("streamed: Bedrock's binary event stream arrives as OpenAI chunks with finish_reason and usage", async () => {
    const stream = await openai.chat.completions.create({
      model: BEDROCK_MODEL,
      messages: [{ role: "system", content: "be kind" }, { role: "user", content: "tell me more" }],
      stream: true,
      stream_options: { include_usage: true },
      stop: ["zzz"],
    });
    let text = "";
    let finish: string | null | undefined;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe("echo: tell me more");
    expect(finish).toBe("stop");
    expect(usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });
    const sent = bedrockUpstream.requests.at(-1)!;
    expect(sent.action).toBe("converse-stream");
    expect(sent.body).toEqual({ system: [{ text: "be kind" }], messages: [{ role: "user", content: [{ text: "tell me more" }] }], inferenceConfig: { stopSequences: ["zzz"] } });
  });

  test("streamed tool call arrives in OpenAI's chunks; its result goes back to Bedrock as toolResult", async () => {
    const question: OpenAI.ChatCompletionMessageParam = { role: "user", content: "weather in Paris?" };
    const stream = await openai.chat.completions.create({ model: BEDROCK_MODEL, messages: [question], tools: openaiTools, stream: true });
    const calls: Record<number, { id?: string; name?: string; arguments: string }> = {};
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
        const entry = (calls[call.index] ??= { arguments: "" });
        entry.id ??= call.id;
        entry.name ??= call.function?.name;
        entry.arguments += call.function?.arguments ?? "";
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(finish).toBe("tool_calls");
    expect(calls[0]).toEqual({ id: "tooluse_mock_1", name: "get_weather", arguments: JSON.stringify({ city: "Paris" }) });
    const assistant: OpenAI.ChatCompletionMessageParam = { role: "assistant", content: null, tool_calls: [{ id: calls[0]!.id!, type: "function", function: { name: "get_weather", arguments: calls[0]!.arguments } }] };
    const followUp = await openai.chat.completions.create({ model: BEDROCK_MODEL, messages: [question, assistant, { role: "tool", tool_call_id: calls[0]!.id!, content: "cloudy" }], tools: openaiTools });
    expect(followUp.choices[0]!.message.content).toBe("tool said cloudy");
    const sent = bedrockUpstream.requests.at(-1)!.body.messages as Array<{ role: string; content: unknown[] }>;
    expect(sent[1]).toEqual({ role: "assistant", content: [{ toolUse: { toolUseId: "tooluse_mock_1", name: "get_weather", input: { city: "Paris" } } }] });
    expect(sent[2]).toEqual({ role: "user", content: [{ toolResult: { toolUseId: "tooluse_mock_1", content: [{ text: "cloudy" }] } }] });
  });

  test("reasoning with its signature comes back from Bedrock and returns to it on the next turn", async () => {
    const thinking = { thinking: { type: "enabled", budget_tokens: 1024 } } as Record<string, unknown>;
    const question: OpenAI.ChatCompletionMessageParam = { role: "user", content: "why is the sky blue" };
    const first = await openai.chat.completions.create({ model: BEDROCK_MODEL, messages: [question], ...thinking });
    const message = first.choices[0]!.message as OpenAI.ChatCompletionMessage & { reasoning_content?: string; thinking_blocks?: unknown[] };
    expect(message.content).toBe("echo: why is the sky blue");
    expect(message.reasoning_content).toBe("pondering why is the sky blue");
    expect(message.thinking_blocks).toEqual([{ type: "thinking", thinking: "pondering why is the sky blue", signature: "sig-5" }]);
    expect(bedrockUpstream.requests.at(-1)!.body.additionalModelRequestFields).toEqual({ thinking: { type: "enabled", budget_tokens: 1024 } });

    const history = [question, message as OpenAI.ChatCompletionMessageParam, { role: "user" as const, content: "and at night?" }];
    await openai.chat.completions.create({ model: BEDROCK_MODEL, messages: history, ...thinking });
    const sentAssistant = (bedrockUpstream.requests.at(-1)!.body.messages as Array<{ content: unknown[] }>)[1]!;
    expect(sentAssistant.content[0]).toEqual({ reasoningContent: { reasoningText: { text: "pondering why is the sky blue", signature: "sig-5" } } });
  });

  test("streamed reasoning arrives as reasoning_content deltas, then its signature in thinking_blocks", async () => {
    const stream = await openai.chat.completions.create({
      model: BEDROCK_MODEL,
      messages: [{ role: "user", content: "think aloud" }],
      stream: true,
      ...({ thinking: { type: "enabled", budget_tokens: 1024 } } as Record<string, unknown>),
    });
    let reasoning = "";
    let text = "";
    const thinkingBlocks: unknown[] = [];
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { content?: string; reasoning_content?: string; thinking_blocks?: unknown[] } | undefined;
      reasoning += delta?.reasoning_content ?? "";
      text += delta?.content ?? "";
      thinkingBlocks.push(...(delta?.thinking_blocks ?? []));
    }
    expect(reasoning).toBe("pondering think aloud");
    expect(thinkingBlocks).toEqual([{ type: "thinking", thinking: "pondering think aloud", signature: "sig-2" }]);
    expect(text).toBe("echo: think aloud");
  });

  test("a Claude model on Bedrock gets temperature without top_p, as it takes only one", async () => {
    const completion = await openai.chat.completions.create({ model: BEDROCK_MODEL, messages: [{ role: "user", content: "hello" }], temperature: 0.4, top_p: 1 });
    expect(completion.choices[0]!.message.content).toBe("echo: hello");
    expect(bedrockUpstream.requests.at(-1)!.body.inferenceConfig).toEqual({ temperature: 0.4 });
  });

  test("Bedrock's stop reasons map to OpenAI finish reasons: max_tokens is length, guardrail_intervened is content_filter", async () => {
    const truncated = await openai.chat.completions.create({ model: BEDROCK_MODEL, messages: [{ role: "user", content: "a long answer please" }], max_tokens: 2 });
    expect(truncated.choices[0]!.finish_reason).toBe("length");
    expect(truncated.choices[0]!.message.content).toBe("echo: a");
    expect(bedrockUpstream.requests.at(-1)!.body.inferenceConfig).toEqual({ maxTokens: 2 });
    const filtered = await openai.chat.completions.create({ model: BEDROCK_MODEL, messages: [{ role: "user", content: "something forbidden" }] });
    expect(filtered.choices[0]!.finish_reason).toBe("content_filter");
  });

  test("a cache_control system part becomes a cachePoint; Bedrock's cache reads come back as cached_tokens", async () => {
    // cache_control is the gateway's extension of OpenAI's text part, so the SDK's types do not know it.
    const cachedPart = { type: "text" as const, text: "a long stable policy text", cache_control: { type: "ephemeral" } };
    const system: OpenAI.ChatCompletionSystemMessageParam = { role: "system", content: [cachedPart] };
    const completion = await openai.chat.completions.create({ model: BEDROCK_MODEL, messages: [system, { role: "user", content: "hi there" }] });
    expect(bedrockUpstream.requests.at(-1)!.body.system).toEqual([{ text: "a long stable policy text" }, { cachePoint: { type: "default" } }]);
    expect(completion.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10, prompt_tokens_details: { cached_tokens: 5 } });
  });

  test("an image as a data URL reaches Bedrock as bytes; an http URL is a 400 naming the part", async () => {
    const pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    const content = (url: string): OpenAI.ChatCompletionContentPart[] => [{ type: "text", text: "describe" }, { type: "image_url", image_url: { url } }];
    await openai.chat.completions.create({ model: BEDROCK_MODEL, messages: [{ role: "user", content: content(`data:image/png;base64,${pixel}`) }] });
    const sent = bedrockUpstream.requests.at(-1)!.body.messages as Array<{ content: unknown[] }>;
    expect(sent[0]!.content[1]).toEqual({ image: { format: "png", source: { bytes: pixel } } });
    const refused = await openai.chat.completions.create({ model: BEDROCK_MODEL, messages: [{ role: "user", content: content("https://example.com/cat.png") }] }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 400, error: { param: "messages[0].content[1].image_url" } });
  });
});
