import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { CohereChatResponse } from "../../src/inference/formats/cohere/wire";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockCohere, startMockCohere } from "../support/mock-cohere";
import { mockEmbedding } from "../support/mock-openai";
import { eventTypes, messageEnd, postCohere, readCohereStream, streamedText, streamedToolCalls } from "./cohere-http";

const COHERE_KEY = "co-upstream-secret-0001";
const weatherTool = { type: "function", function: { name: "get_weather", description: "Weather for a city", parameters: { type: "object", properties: { city: { type: "string" } } } } };

let upstream: MockCohere;
let gw: TestGateway;

beforeAll(async () => {
  upstream = startMockCohere(COHERE_KEY);
  gw = await startGateway({ providers: { cohere: { keys: [{ id: "co1", value: COHERE_KEY }], network_config: { base_url: upstream.baseUrl } } } });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

const chat = (body: Record<string, unknown>, path = "/cohere/v2/chat") => postCohere(`${gw.url}${path}`, body);

describe("Cohere v2 chat through /cohere", () => {
  test("a bare model name reaches Cohere at /v2/chat with the provider key as bearer, and Cohere's reply comes back", async () => {
    const response = await chat({ model: "command-a-03-2025", messages: [{ role: "user", content: "hello there" }] });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-gw-provider")).toBe("cohere");
    const body = (await response.json()) as CohereChatResponse;
    expect(body.message.content).toEqual([{ type: "text", text: "echo: hello there" }]);
    expect(body.finish_reason).toBe("COMPLETE");
    expect(body.usage?.billed_units?.output_tokens).toBe(3);
    const sent = upstream.requests.at(-1)!;
    expect(sent.path).toBe("/v2/chat");
    expect(sent.headers.get("authorization")).toBe(`Bearer ${COHERE_KEY}`);
    expect(sent.body.model).toBe("command-a-03-2025");
  });

  test("cohere/<model> names the provider, and gateway-only fields never reach Cohere", async () => {
    const response = await chat({ model: "cohere/command-r", fallbacks: ["cohere/command-r7b"], messages: [{ role: "user", content: "hi" }] });
    expect(response.status).toBe(200);
    const sent = upstream.requests.at(-1)!.body;
    expect(sent.model).toBe("command-r");
    expect(sent).not.toHaveProperty("fallbacks");
  });

  test("streamed chat arrives as Cohere's v2 events, message-start to message-end with usage", async () => {
    const response = await chat({ model: "command-a-03-2025", stream: true, messages: [{ role: "user", content: "one two three" }] });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const events = await readCohereStream(response);
    expect(eventTypes(events)[0]).toBe("message-start");
    expect(eventTypes(events)).toContain("content-start");
    expect(eventTypes(events).slice(-2)).toEqual(["content-end", "message-end"]);
    expect(events.every((received) => received.name === received.event.type)).toBe(true);
    expect(streamedText(events)).toBe("echo: one two three");
    expect(messageEnd(events)).toMatchObject({ finish_reason: "COMPLETE", usage: { billed_units: { output_tokens: 4 } } });
  });

  test("tool use: the tool plan and tool call come back, and the tool result with its tool_call_id reaches the model", async () => {
    const question = { role: "user", content: "what is the weather?" };
    const first = (await (await chat({ model: "command-a-03-2025", tools: [weatherTool], messages: [question] })).json()) as CohereChatResponse;
    expect(first.finish_reason).toBe("TOOL_CALL");
    expect(first.message.tool_plan).toBe("I will look up the weather in Paris.");
    const call = first.message.tool_calls![0]!;
    expect(JSON.parse(call.function.arguments)).toEqual({ city: "Paris" });

    const toolTurn = { role: "tool", tool_call_id: call.id, content: [{ type: "document", document: { data: { temperature: "21C" } } }] };
    const second = await chat({ model: "command-a-03-2025", tools: [weatherTool], messages: [question, { role: "assistant", tool_plan: first.message.tool_plan, tool_calls: [call] }, toolTurn] });
    const answer = (await second.json()) as CohereChatResponse;
    expect(answer.message.content?.[0]).toEqual({ type: "text", text: 'tool said: {"temperature":"21C"}' });
  });

  test("streamed tool use: tool-plan-delta, then tool-call-start/delta/end whose arguments parse", async () => {
    const events = await readCohereStream(await chat({ model: "command-a-03-2025", stream: true, tools: [weatherTool], messages: [{ role: "user", content: "weather please" }] }));
    expect(eventTypes(events)).toContain("tool-plan-delta");
    expect(eventTypes(events)).toContain("tool-call-end");
    const [call] = streamedToolCalls(events);
    expect(call!.name).toBe("get_weather");
    expect(JSON.parse(call!.arguments)).toEqual({ city: "Paris" });
    expect(messageEnd(events).finish_reason).toBe("TOOL_CALL");
  });

  test("documents are passed through and the reply's citations come back, streamed too", async () => {
    const body = { model: "command-a-03-2025", documents: ["Paris is the capital of France."], messages: [{ role: "user", content: "capital?" }] };
    const reply = (await (await chat(body)).json()) as CohereChatResponse;
    expect(upstream.requests.at(-1)!.body.documents).toEqual(body.documents);
    expect(reply.message.citations?.[0]?.sources).toHaveLength(1);
    const events = await readCohereStream(await chat({ ...body, stream: true }));
    expect(eventTypes(events)).toContain("citation-start");
    expect(eventTypes(events)).toContain("citation-end");
  });
});

describe("Cohere v2 embed and rerank through /cohere", () => {
  test("embed returns Cohere's embeddings by type for the texts", async () => {
    const response = await postCohere(`${gw.url}/cohere/v2/embed`, { model: "embed-v4.0", texts: ["alpha", "beta"], input_type: "search_query", embedding_types: ["float", "int8"] });
    const body = (await response.json()) as { embeddings: { float: number[][]; int8: number[][] }; response_type: string };
    expect(response.status).toBe(200);
    expect(body.response_type).toBe("embeddings_by_type");
    expect(body.embeddings.float).toEqual([mockEmbedding("alpha"), mockEmbedding("beta")]);
    expect(body.embeddings.int8[0]).toEqual(mockEmbedding("alpha").map((value) => Math.round(value * 127)));
    expect(upstream.requests.at(-1)!.path).toBe("/v2/embed");
  });

  test("rerank orders the documents by relevance and honours top_n", async () => {
    const documents = ["bananas are yellow", "the capital of France is Paris", "France has a tower"];
    const response = await postCohere(`${gw.url}/cohere/v2/rerank`, { model: "rerank-v3.5", query: "capital of France", documents, top_n: 2 });
    const body = (await response.json()) as { results: Array<{ index: number; relevance_score: number }> };
    expect(response.status).toBe(200);
    expect(body.results.map((result) => result.index)).toEqual([1, 2]);
    expect(upstream.requests.at(-1)!.path).toBe("/v2/rerank");
    expect(upstream.requests.at(-1)!.headers.get("authorization")).toBe(`Bearer ${COHERE_KEY}`);
  });
});

describe("bad input on /cohere is a 400 naming the field", () => {
  const cases: Array<[string, string, Record<string, unknown>, string]> = [
    ["chat without messages", "/cohere/v2/chat", { model: "command-a-03-2025" }, "messages"],
    ["chat with an unknown role", "/cohere/v2/chat", { model: "command-a-03-2025", messages: [{ role: "robot", content: "x" }] }, "messages[0].role"],
    ["chat without a model", "/cohere/v2/chat", { messages: [{ role: "user", content: "x" }] }, "model"],
    ["a tool result without tool_call_id", "/cohere/v2/chat", { model: "c", messages: [{ role: "user", content: "x" }, { role: "tool", content: "y" }] }, "messages[1].tool_call_id"],
    ["a tool_choice Cohere does not know", "/cohere/v2/chat", { model: "c", tool_choice: "AUTO", messages: [{ role: "user", content: "x" }] }, "tool_choice"],
    ["embed with nothing to embed", "/cohere/v2/embed", { model: "embed-v4.0", input_type: "search_query" }, "texts"],
    ["rerank without a query", "/cohere/v2/rerank", { model: "rerank-v3.5", documents: ["a"] }, "query"],
    ["rerank with no documents", "/cohere/v2/rerank", { model: "rerank-v3.5", query: "q", documents: [] }, "documents"],
  ];
  for (const [name, path, body, param] of cases) {
    test(name, async () => {
      const before = upstream.requests.length;
      const response = await postCohere(`${gw.url}${path}`, body);
      const error = (await response.json()) as { error: { param: string }; extra_fields: { error_type: string } };
      expect(response.status).toBe(400);
      expect(error.error.param).toBe(param);
      expect(error.extra_fields.error_type).toStartWith("caller_");
      expect(upstream.requests.length).toBe(before);
    });
  }
});

describe("Cohere's format under the framework mounts", () => {
  for (const framework of ["litellm", "langchain", "pydanticai"]) {
    test(`/${framework}/cohere/v2/chat speaks Cohere's format`, async () => {
      const response = await chat({ model: "command-a-03-2025", messages: [{ role: "user", content: framework }] }, `/${framework}/cohere/v2/chat`);
      const body = (await response.json()) as CohereChatResponse;
      expect(body.message.content?.[0]).toEqual({ type: "text", text: `echo: ${framework}` });
    });
  }
});
