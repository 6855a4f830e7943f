import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import type { CohereChatResponse } from "../../src/inference/formats/cohere/wire";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockCohere, startMockCohere } from "../support/mock-cohere";
import { type MockOpenAI, mockEmbedding, startMockOpenAI } from "../support/mock-openai";
import { eventTypes, messageEnd, postCohere, readCohereStream, streamedText, streamedToolCalls } from "./cohere-http";

const COHERE_KEY = "co-upstream-secret-0002";
const cohereTool = { type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } };
const openAITool = { type: "function" as const, function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } };

let cohere: MockCohere;
let openai: MockOpenAI;
let gw: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  cohere = startMockCohere(COHERE_KEY);
  openai = startMockOpenAI();
  gw = await startGateway({
    providers: {
      cohere: { keys: [{ id: "co1", value: COHERE_KEY }], network_config: { base_url: cohere.baseUrl } },
      openai: { keys: [{ id: "oa1", value: "sk-openai-secret-0001" }], network_config: { base_url: openai.baseUrl } },
    },
  });
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  cohere.stop();
  openai.stop();
});

const cohereChat = (body: Record<string, unknown>, headers?: Record<string, string>) => postCohere(`${gw.url}/cohere/v2/chat`, body, headers);

describe("a Cohere-format client reaching an OpenAI-family model", () => {
  test("chat is translated to OpenAI's request and the reply comes back in Cohere's shape", async () => {
    const response = await cohereChat({
      model: "openai/gpt-4o-mini",
      messages: [{ role: "system", content: "be brief" }, { role: "user", content: [{ type: "text", text: "hello cohere" }] }],
      max_tokens: 50,
      stop_sequences: ["END"],
      p: 0.5,
    });
    const body = (await response.json()) as CohereChatResponse;
    expect(response.headers.get("x-gw-provider")).toBe("openai");
    expect(body.message.content).toEqual([{ type: "text", text: "echo: hello cohere" }]);
    expect(body.finish_reason).toBe("COMPLETE");
    expect(body.usage?.billed_units).toEqual({ input_tokens: 2, output_tokens: 3 });
    const sent = openai.requests.at(-1)!;
    expect(sent.path).toBe("/v1/chat/completions");
    expect(sent.body).toMatchObject({ model: "gpt-4o-mini", max_tokens: 50, stop: ["END"], top_p: 0.5, messages: [{ role: "system", content: "be brief" }, { role: "user" }] });
  });

  test("a stream from an OpenAI model arrives as Cohere v2 events with usage in message-end", async () => {
    const events = await readCohereStream(await cohereChat({ model: "openai/gpt-4o-mini", stream: true, messages: [{ role: "user", content: "stream me please" }] }));
    expect(eventTypes(events)[0]).toBe("message-start");
    expect(eventTypes(events)[1]).toBe("content-start");
    expect(eventTypes(events).slice(-2)).toEqual(["content-end", "message-end"]);
    expect(events.every((received) => received.name === received.event.type)).toBe(true);
    expect(streamedText(events)).toBe("echo: stream me please");
    expect(messageEnd(events)).toMatchObject({ finish_reason: "COMPLETE", usage: { billed_units: { input_tokens: 3, output_tokens: 4 } } });
  });

  test("tools go out in OpenAI's shape; the tool call comes back as Cohere tool_calls, streamed as tool-call events", async () => {
    const question = { role: "user", content: "what is the weather?" };
    const reply = (await (await cohereChat({ model: "openai/gpt-4o-mini", tools: [cohereTool], tool_choice: "REQUIRED", messages: [question] })).json()) as CohereChatResponse;
    expect(openai.requests.at(-1)!.body).toMatchObject({ tools: [openAITool], tool_choice: "required" });
    expect(reply.finish_reason).toBe("TOOL_CALL");
    expect(reply.message.tool_calls?.[0]?.function.name).toBe("get_weather");

    const events = await readCohereStream(await cohereChat({ model: "openai/gpt-4o-mini", stream: true, tools: [cohereTool], messages: [question] }));
    const [call] = streamedToolCalls(events);
    expect(JSON.parse(call!.arguments)).toEqual({ city: "Paris" });
    expect(eventTypes(events)).toContain("tool-call-end");
    expect(messageEnd(events).finish_reason).toBe("TOOL_CALL");
  });

  test("a tool result with its tool_call_id reaches OpenAI as a tool message after the assistant's tool call", async () => {
    const call = { id: "call_abc", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } };
    const messages = [
      { role: "user", content: "weather in Paris" },
      { role: "assistant", tool_plan: "Checking the weather.", tool_calls: [call] },
      { role: "tool", tool_call_id: "call_abc", content: [{ type: "document", document: { data: { temperature: "21C" } } }] },
    ];
    await cohereChat({ model: "openai/gpt-4o-mini", tools: [cohereTool], messages });
    const sent = openai.requests.at(-1)!.body.messages as Array<Record<string, unknown>>;
    expect(sent[1]).toMatchObject({ role: "assistant", content: "Checking the weather.", tool_calls: [call] });
    expect(sent[2]).toEqual({ role: "tool", tool_call_id: "call_abc", content: '{"temperature":"21C"}' });
  });

  test("grounding documents reach the OpenAI model as a system message, and json_schema is asked for", async () => {
    const schema = { type: "object", properties: { answer: { type: "string" } } };
    const response = await cohereChat({
      model: "openai/gpt-4o-mini",
      documents: ["Paris is the capital of France.", { id: "atlas", data: { title: "Atlas", text: "Lyon is in France." } }],
      response_format: { type: "json_object", json_schema: schema },
      messages: [{ role: "user", content: "capital?" }],
    });
    const body = (await response.json()) as CohereChatResponse;
    const sent = openai.requests.at(-1)!.body;
    expect((sent.messages as Array<{ content: string }>)[0]!.content).toContain("[doc_0] Paris is the capital of France.");
    expect((sent.messages as Array<{ content: string }>)[0]!.content).toContain("[atlas]");
    expect(sent.response_format).toEqual({ type: "json_schema", json_schema: { name: "response", schema } });
    expect(JSON.parse((body.message.content![0] as { text: string }).text)).toEqual({ answer: "echo: capital?" });
  });

  test("embed with texts is answered by an OpenAI embedding model as Cohere float embeddings", async () => {
    const response = await postCohere(`${gw.url}/cohere/v2/embed`, { model: "openai/text-embedding-3-small", texts: ["alpha"], input_type: "search_query", embedding_types: ["float"] });
    const body = (await response.json()) as { embeddings: { float: number[][] }; meta: { billed_units: { input_tokens: number } } };
    expect(body.embeddings.float).toEqual([mockEmbedding("alpha")]);
    expect(body.meta.billed_units.input_tokens).toBe(1);
    expect(openai.requests.at(-1)!.body).toMatchObject({ model: "text-embedding-3-small", input: ["alpha"] });
  });

  test("embedding types only Cohere produces, and rerank, are refused for an OpenAI model with a 400", async () => {
    const embed = await postCohere(`${gw.url}/cohere/v2/embed`, { model: "openai/text-embedding-3-small", texts: ["alpha"], embedding_types: ["int8"] });
    expect(embed.status).toBe(400);
    expect(((await embed.json()) as { error: { param: string } }).error.param).toBe("embedding_types");
    const rerank = await postCohere(`${gw.url}/cohere/v2/rerank`, { model: "openai/gpt-4o-mini", query: "q", documents: ["a"] });
    expect(rerank.status).toBe(400);
    expect(((await rerank.json()) as { error: { message: string } }).error.message).toContain("rerank");
  });
});

describe("the OpenAI SDK reaching a Cohere model", () => {
  test("chat is sent to Cohere's /v2/chat in v2 shape, and usage comes from Cohere's billed units", async () => {
    const completion = await client.chat.completions.create({ model: "cohere/command-a-03-2025", messages: [{ role: "developer", content: "terse" }, { role: "user", content: "hi from openai" }] });
    expect(completion.choices[0]!.message.content).toBe("echo: hi from openai");
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    expect(completion.usage).toMatchObject({ prompt_tokens: 4, completion_tokens: 4, total_tokens: 8 });
    const sent = cohere.requests.at(-1)!;
    expect(sent.path).toBe("/v2/chat");
    expect(sent.headers.get("authorization")).toBe(`Bearer ${COHERE_KEY}`);
    expect(sent.body).toMatchObject({ model: "command-a-03-2025", stream: false, messages: [{ role: "system", content: "terse" }, { role: "user", content: "hi from openai" }] });
  });

  test("a streamed chat arrives chunk by chunk with the finish reason and usage", async () => {
    const stream = await client.chat.completions.create({ model: "cohere/command-a-03-2025", stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "one two three" }] });
    let text = "";
    let chunks = 0;
    let finish: string | null | undefined;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      chunks++;
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe("echo: one two three");
    expect(chunks).toBeGreaterThan(3);
    expect(finish).toBe("stop");
    expect(usage?.completion_tokens).toBe(4);
    expect(cohere.requests.at(-1)!.body.stream).toBe(true);
  });

  test("a streamed chat's usage comes as OpenAI sends it: asked for, in a last chunk of its own with no choices; not asked for, nowhere", async () => {
    const chunksOf = async (body: Record<string, unknown>) => {
      const response = await fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "cohere/command-a-03-2025", stream: true, messages: [{ role: "user", content: "one two three" }], ...body }) });
      const events = (await response.text()).split("\n").filter((line) => line.startsWith("data: "));
      expect(events.at(-1)).toBe("data: [DONE]");
      return events.slice(0, -1).map((event) => JSON.parse(event.slice("data: ".length)) as OpenAI.ChatCompletionChunk);
    };
    const asked = await chunksOf({ stream_options: { include_usage: true } });
    expect(asked.filter((chunk) => chunk.usage).map((chunk) => chunk.choices)).toEqual([[]]);
    expect(asked.at(-1)!.usage?.completion_tokens).toBe(4);
    expect((await chunksOf({})).some((chunk) => "usage" in chunk)).toBe(false);
  });

  test("a streamed tool call assembles from Cohere's tool-call events, with the tool plan as content", async () => {
    const stream = await client.chat.completions.create({ model: "cohere/command-a-03-2025", stream: true, tools: [openAITool], messages: [{ role: "user", content: "weather in Paris?" }] });
    let content = "";
    let args = "";
    let name: string | undefined;
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta;
      content += delta?.content ?? "";
      name = delta?.tool_calls?.[0]?.function?.name ?? name;
      args += delta?.tool_calls?.[0]?.function?.arguments ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(content).toBe("I will look up the weather in Paris.");
    expect(name).toBe("get_weather");
    expect(JSON.parse(args)).toEqual({ city: "Paris" });
    expect(finish).toBe("tool_calls");
    expect(cohere.requests.at(-1)!.body.tools).toEqual([{ type: "function", function: openAITool.function }]);
  });

  test("a tool result goes back to Cohere with its tool_call_id and the model answers from it", async () => {
    const completion = await client.chat.completions.create({
      model: "cohere/command-a-03-2025",
      tools: [openAITool],
      messages: [
        { role: "user", content: "weather in Paris?" },
        { role: "assistant", content: null, tool_calls: [{ id: "get_weather_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
        { role: "tool", tool_call_id: "get_weather_1", content: "sunny" },
      ],
    });
    expect(completion.choices[0]!.message.content).toBe("tool said: sunny");
    const sent = cohere.requests.at(-1)!.body.messages as Array<Record<string, unknown>>;
    expect(sent[1]).toMatchObject({ role: "assistant", tool_calls: [{ id: "get_weather_1" }] });
    expect(sent[2]).toEqual({ role: "tool", tool_call_id: "get_weather_1", content: "sunny" });
  });

  test("Cohere's MAX_TOKENS is finish_reason length and STOP_SEQUENCE is stop", async () => {
    const truncated = await client.chat.completions.create({ model: "cohere/command-a-03-2025", max_tokens: 2, messages: [{ role: "user", content: "a long answer please" }] });
    expect(truncated.choices[0]!.finish_reason).toBe("length");
    expect(truncated.choices[0]!.message.content).toBe("echo: a ");
    expect(cohere.requests.at(-1)!.body.max_tokens).toBe(2);
    const stopped = await client.chat.completions.create({ model: "cohere/command-a-03-2025", stop: "please", messages: [{ role: "user", content: "stop here please" }] });
    expect(stopped.choices[0]!.finish_reason).toBe("stop");
    expect(stopped.choices[0]!.message.content).toBe("echo: stop here ");
    expect(cohere.requests.at(-1)!.body.stop_sequences).toEqual(["please"]);
  });

  test("a json_schema response format and a named tool_choice are expressed the way Cohere takes them", async () => {
    const schema = { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] };
    const completion = await client.chat.completions.create({
      model: "cohere/command-a-03-2025",
      response_format: { type: "json_schema", json_schema: { name: "answer", schema } },
      messages: [{ role: "user", content: "json please" }],
    });
    expect(JSON.parse(completion.choices[0]!.message.content!)).toEqual({ answer: "echo: json please" });
    expect(cohere.requests.at(-1)!.body.response_format).toEqual({ type: "json_object", json_schema: schema });

    const otherTool = { type: "function" as const, function: { name: "get_time", parameters: { type: "object" } } };
    await client.chat.completions.create({ model: "cohere/command-a-03-2025", tools: [otherTool, openAITool], tool_choice: { type: "function", function: { name: "get_weather" } }, messages: [{ role: "user", content: "weather?" }] });
    const sent = cohere.requests.at(-1)!.body;
    expect(sent.tool_choice).toBe("REQUIRED");
    expect((sent.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name)).toEqual(["get_weather"]);
  });

  test("embeddings reach Cohere's /v2/embed with input_type search_document and float types", async () => {
    const result = await client.embeddings.create({ model: "cohere/embed-v4.0", input: ["alpha", "beta"], encoding_format: "float" });
    expect(result.data.map((row) => row.embedding)).toEqual([mockEmbedding("alpha"), mockEmbedding("beta")]);
    expect(result.usage.prompt_tokens).toBe(2);
    expect(cohere.requests.at(-1)!.body).toMatchObject({ texts: ["alpha", "beta"], input_type: "search_document", embedding_types: ["float"] });
  });

  test("the SDK's default base64 embeddings decode to the provider's vectors", async () => {
    const result = await client.embeddings.create({ model: "cohere/embed-v4.0", input: ["alpha"] });
    expect(result.data[0]!.embedding).toEqual(Array.from(new Float32Array(mockEmbedding("alpha"))));
  });

  test("Cohere's own rejection reaches the client with its status and message", async () => {
    const failure: unknown = await client.chat.completions
      .create({ model: "cohere/command-a-03-2025", messages: [{ role: "user", content: "x" }, { role: "tool", tool_call_id: "nowhere", content: "orphan" }] })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
    expect((failure as InstanceType<typeof OpenAI.BadRequestError>).message).toContain("tool_call_id 'nowhere'");
  });
});

describe("fallbacks on /cohere", () => {
  test("when Cohere fails, the fallback OpenAI model answers in Cohere's format", async () => {
    cohere.faults.push({ kind: "status", status: 503 });
    const response = await cohereChat({ model: "command-a-03-2025", fallbacks: ["openai/gpt-4o-mini"], messages: [{ role: "user", content: "rescue me" }] });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-gw-provider")).toBe("openai");
    const body = (await response.json()) as CohereChatResponse;
    expect(body.message.content).toEqual([{ type: "text", text: "echo: rescue me" }]);
  });

  test("fallbacks named in x-gw-fallbacks apply to a streamed request", async () => {
    cohere.faults.push({ kind: "status", status: 429 });
    const response = await cohereChat({ model: "command-a-03-2025", stream: true, messages: [{ role: "user", content: "stream rescue" }] }, { "x-gw-fallbacks": "openai/gpt-4o-mini" });
    expect(response.headers.get("x-gw-provider")).toBe("openai");
    const events = await readCohereStream(response);
    expect(streamedText(events)).toBe("echo: stream rescue");
    expect(messageEnd(events).finish_reason).toBe("COMPLETE");
  });

  test("when every target fails, the primary's error is returned with each attempt listed", async () => {
    cohere.faults.push({ kind: "status", status: 503, message: "cohere is down" });
    openai.faults.push({ kind: "status", status: 500 });
    const response = await cohereChat({ model: "command-a-03-2025", fallbacks: ["openai/gpt-4o-mini"], messages: [{ role: "user", content: "doomed" }] });
    const error = (await response.json()) as { error: { message: string }; extra_fields: { routing_info: { attempts: Array<{ provider: string; status: number }> } } };
    expect(response.status).toBe(503);
    expect(error.error.message).toBe("cohere is down");
    expect(error.extra_fields.routing_info.attempts.map((attempt) => [attempt.provider, attempt.status])).toEqual([
      ["cohere", 503],
      ["openai", 500],
    ]);
  });
});
