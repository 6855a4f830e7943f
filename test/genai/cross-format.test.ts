import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ApiError, GoogleGenAI, ThinkingLevel, Type } from "@google/genai";
import { encodeChat } from "gpt-tokenizer";
import OpenAI from "openai";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockGemini, startMockGemini } from "../support/mock-gemini";
import { type MockOpenAI, mockEmbedding, startMockOpenAI } from "../support/mock-openai";

let gemini: MockGemini;
let openaiUpstream: MockOpenAI;
let gw: TestGateway;
let ai: GoogleGenAI;
let openai: OpenAI;

beforeAll(async () => {
  gemini = startMockGemini();
  openaiUpstream = startMockOpenAI();
  gw = await startGateway({
    providers: {
      gemini: { keys: [{ id: "g1", value: gemini.apiKey }], network_config: { base_url: gemini.geminiBaseUrl } },
      openai: { keys: [{ id: "o1", value: "sk-openai-upstream-0001" }], network_config: { base_url: openaiUpstream.baseUrl } },
    },
  });
  ai = new GoogleGenAI({ apiKey: "unused", httpOptions: { baseUrl: `${gw.url}/genai` } });
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  gemini.stop();
  openaiUpstream.stop();
});

const weatherTool = { functionDeclarations: [{ name: "get_weather", description: "Weather in a city", parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } }, required: ["city"] } }] };

describe("the genai SDK to an OpenAI-family model", () => {
  test("generateContent is sent as chat completions and answered as a GenerateContentResponse", async () => {
    const response = await ai.models.generateContent({
      model: "openai/gpt-4o-mini",
      contents: "hello openai",
      config: { systemInstruction: "be brief", temperature: 0.2, topP: 0.9, maxOutputTokens: 50, stopSequences: ["END"] },
    });
    expect(response.text).toBe("echo: hello openai");
    expect(response.candidates![0]!.finishReason).toBe("STOP" as never);
    expect(response.usageMetadata).toEqual({ promptTokenCount: 2, candidatesTokenCount: 3, totalTokenCount: 5 });
    const sent = openaiUpstream.requests.at(-1)!;
    expect(sent.path).toBe("/v1/chat/completions");
    expect(sent.body).toMatchObject({ model: "gpt-4o-mini", temperature: 0.2, top_p: 0.9, max_tokens: 50, stop: ["END"] });
    expect(sent.body.messages).toEqual([
      { role: "system", content: "be brief" },
      { role: "user", content: "hello openai" },
    ]);
  });

  test("a thinking level reaches an OpenAI reasoning model as reasoning_effort, and any other model without it", async () => {
    await ai.models.generateContent({ model: "openai/o4-mini", contents: "hello", config: { thinkingConfig: { thinkingLevel: ThinkingLevel.HIGH } } });
    expect(openaiUpstream.requests.at(-1)!.body).toMatchObject({ reasoning_effort: "high" });
    await ai.models.generateContent({ model: "openai/gpt-4o-mini", contents: "hello", config: { thinkingConfig: { thinkingLevel: ThinkingLevel.HIGH } } });
    expect(openaiUpstream.requests.at(-1)!.body).not.toHaveProperty("reasoning_effort");
  });

  test("to an OpenAI reasoning model: the limit goes as max_completion_tokens, and sampling and topK stay behind", async () => {
    await ai.models.generateContent({ model: "openai/o4-mini", contents: "hello", config: { temperature: 0.2, topP: 0.9, topK: 5, maxOutputTokens: 50 } });
    const sent = openaiUpstream.requests.at(-1)!.body;
    expect(sent).toMatchObject({ model: "o4-mini", max_completion_tokens: 50 });
    expect(sent).not.toContainAnyKeys(["max_tokens", "temperature", "top_p", "top_k"]);
  });

  test("generateContentStream is translated event by event, finishing with finishReason and usage together", async () => {
    const stream = await ai.models.generateContentStream({ model: "openai/gpt-4o-mini", contents: "stream me please" });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.text ?? "").join("")).toBe("echo: stream me please");
    expect(chunks.length).toBeGreaterThan(3);
    const last = chunks.at(-1)!;
    expect(last.candidates![0]!.finishReason).toBe("STOP" as never);
    expect(last.usageMetadata?.totalTokenCount).toBe(last.usageMetadata!.promptTokenCount! + last.usageMetadata!.candidatesTokenCount!);
    expect(openaiUpstream.requests.at(-1)!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  test("an OpenAI refusal reaches the genai SDK as the candidate's text, finished for SAFETY", async () => {
    const refusal = "I cannot help with that.";
    const completion = { id: "chatcmpl-r", object: "chat.completion", created: 1, model: "gpt-4o-mini", choices: [{ index: 0, message: { role: "assistant", content: null, refusal }, finish_reason: "stop" }], usage: { prompt_tokens: 3, completion_tokens: 6, total_tokens: 9 } };
    openaiUpstream.faults.push({ kind: "body", body: JSON.stringify(completion), contentType: "application/json" });
    const response = await ai.models.generateContent({ model: "openai/gpt-4o-mini", contents: "something forbidden" });
    expect(response.text).toBe(refusal);
    expect(response.candidates![0]!.finishReason).toBe("SAFETY" as never);
  });

  test("a stream the server ends with an error event midway ends with Gemini's error, which the SDK raises", async () => {
    openaiUpstream.faults.push({ kind: "error-mid-stream", message: "upstream overloaded mid-stream" });
    const stream = await ai.models.generateContentStream({ model: "openai/gpt-4o-mini", contents: "one two three four" });
    let text = "";
    const read = (async () => {
      for await (const chunk of stream) text += chunk.text ?? "";
    })();
    const error = await read.then(() => undefined, (thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 502, message: expect.stringContaining("upstream overloaded mid-stream") });
    expect(text.length).toBeGreaterThan(0);
  });

  test("function declarations become OpenAI tools and the tool call comes back as a functionCall", async () => {
    const response = await ai.models.generateContent({ model: "openai/gpt-4o-mini", contents: "what is the weather?", config: { tools: [weatherTool] } });
    expect(response.functionCalls).toEqual([{ id: "call_mock_1", name: "get_weather", args: { city: "Paris" } }]);
    expect(openaiUpstream.requests.at(-1)!.body.tools).toEqual([
      { type: "function", function: { name: "get_weather", description: "Weather in a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } },
    ]);
  });

  test("a functionResponse turn becomes a tool message answering the model's call", async () => {
    await ai.models.generateContent({
      model: "openai/gpt-4o-mini",
      contents: [
        { role: "user", parts: [{ text: "weather tool please" }] },
        { role: "model", parts: [{ functionCall: { name: "get_weather", args: { city: "Paris" } } }] },
        { role: "user", parts: [{ functionResponse: { name: "get_weather", response: { forecast: "sunny" } } }] },
      ],
      config: { tools: [weatherTool] },
    });
    const [, assistant, tool] = openaiUpstream.requests.at(-1)!.body.messages as Array<{ role: string; tool_calls?: Array<{ id: string; function: { arguments: string } }>; tool_call_id?: string; content: unknown }>;
    expect(assistant!.role).toBe("assistant");
    expect(JSON.parse(assistant!.tool_calls![0]!.function.arguments)).toEqual({ city: "Paris" });
    expect(tool).toMatchObject({ role: "tool", tool_call_id: assistant!.tool_calls![0]!.id, content: JSON.stringify({ forecast: "sunny" }) });
  });

  test("responseMimeType with a schema becomes a json_schema response_format", async () => {
    const response = await ai.models.generateContent({
      model: "openai/gpt-4o-mini",
      contents: "json please",
      config: { responseMimeType: "application/json", responseSchema: { type: Type.OBJECT, properties: { answer: { type: Type.STRING } } } },
    });
    expect(JSON.parse(response.text!)).toEqual({ answer: "echo: json please" });
    expect(openaiUpstream.requests.at(-1)!.body.response_format).toEqual({ type: "json_schema", json_schema: { name: "response", schema: { type: "object", properties: { answer: { type: "string" } } } } });
  });

  test("embedContent is answered from OpenAI embeddings", async () => {
    const response = await ai.models.embedContent({ model: "openai/text-embedding-3-small", contents: ["alpha", "beta"] });
    expect(response.embeddings!.map((embedding) => embedding.values)).toEqual([mockEmbedding("alpha"), mockEmbedding("beta")]);
    expect(openaiUpstream.requests.at(-1)!.body.input).toEqual(["alpha", "beta"]);
  });

  test("countTokens to a provider that cannot count Gemini content is counted by the gateway", async () => {
    const before = openaiUpstream.requests.length;
    const text = "How many tokens does this sentence take?";
    const response = await ai.models.countTokens({ model: "openai/gpt-4o-mini", contents: text });
    // The gateway's estimate: OpenAI's o200k tokenizer over the conversation as one user turn.
    expect(response.totalTokens).toBe(encodeChat([{ role: "user", content: text }], "gpt-4o").length);
    expect(openaiUpstream.requests.length).toBe(before);
  });
});

describe("the OpenAI SDK to a Gemini model", () => {
  test("a streamed chat completion is translated from Gemini's SSE chunk by chunk, usage last", async () => {
    const stream = await openai.chat.completions.create({ model: "gemini/gemini-2.0-flash", messages: [{ role: "user", content: "one two three" }], stream: true, stream_options: { include_usage: true } });
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
    expect(usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });
    const sent = gemini.requests.at(-1)!;
    expect(sent.path).toBe("/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse");
    expect(sent.body.contents).toEqual([{ role: "user", parts: [{ text: "one two three" }] }]);
  });

  test("tools, tool choice and the system prompt reach Gemini in its own shape; the functionCall returns as tool_calls", async () => {
    const completion = await openai.chat.completions.create({
      model: "gemini/gemini-2.0-flash",
      messages: [
        { role: "system", content: "you are a weather bot" },
        { role: "user", content: "weather in Paris?" },
      ],
      tools: [{ type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }],
      tool_choice: "required",
    });
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    const call = choice.message.tool_calls![0]!;
    expect(call.type === "function" && [call.function.name, JSON.parse(call.function.arguments)]).toEqual(["get_weather", { city: "Paris" }]);
    const sent = gemini.requests.at(-1)!.body;
    expect(sent.systemInstruction).toEqual({ parts: [{ text: "you are a weather bot" }] });
    expect(sent.tools).toEqual([{ functionDeclarations: [{ name: "get_weather", parametersJsonSchema: { type: "object", properties: { city: { type: "string" } } } }] }]);
    expect(sent.toolConfig).toEqual({ functionCallingConfig: { mode: "ANY" } });
  });

  describe("Gemini 3's thought signatures on function calls", () => {
    const tools: OpenAI.ChatCompletionTool[] = [{ type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }];
    const question: OpenAI.ChatCompletionMessageParam = { role: "user", content: "weather in Paris?" };
    type SignedCall = OpenAI.ChatCompletionMessageToolCall & { extra_content?: { google?: { thought_signature?: string } } };
    const answerWith = (model: string, assistant: OpenAI.ChatCompletionAssistantMessageParam, callId: string) =>
      openai.chat.completions.create({ model, tools, messages: [question, assistant, { role: "tool", tool_call_id: callId, content: '{"sky":"clear"}' }] });
    const sentCall = () => ((gemini.requests.at(-1)!.body.contents as Array<{ role: string; parts: Array<Record<string, unknown>> }>)[1]!.parts.find((part) => part.functionCall) ?? {}) as { thoughtSignature?: string };

    test("the signature comes back where Gemini's OpenAI API puts it, and goes back with the call", async () => {
      const first = await openai.chat.completions.create({ model: "gemini/gemini-3-pro-preview", tools, messages: [question] });
      const call = first.choices[0]!.message.tool_calls![0] as SignedCall;
      const signature = call.extra_content?.google?.thought_signature;
      expect(signature).toBeString();
      const answer = await answerWith("gemini/gemini-3-pro-preview", first.choices[0]!.message, call.id);
      expect(answer.choices[0]!.message.content).toBe('the tool said {"sky":"clear"}');
      expect(sentCall().thoughtSignature).toBe(signature!);
    });

    test("streamed, the signature arrives on the tool call's delta", async () => {
      const stream = await openai.chat.completions.create({ model: "gemini/gemini-3-pro-preview", tools, messages: [question], stream: true });
      const deltas: SignedCall[] = [];
      for await (const chunk of stream) deltas.push(...((chunk.choices[0]?.delta.tool_calls ?? []) as unknown as SignedCall[]));
      expect(deltas.find((delta) => delta.extra_content)?.extra_content?.google?.thought_signature).toBeString();
    });

    test("a client that rebuilt the turn without it gets Gemini's stand-in, not a refusal", async () => {
      const call = { id: "call_rebuilt", type: "function" as const, function: { name: "get_weather", arguments: '{"city":"Paris"}' } };
      const answer = await answerWith("gemini/gemini-3-pro-preview", { role: "assistant", content: null, tool_calls: [call] }, call.id);
      expect(answer.choices[0]!.message.content).toBe('the tool said {"sky":"clear"}');
      expect(sentCall().thoughtSignature).toBe("skip_thought_signature_validator");
    });

    test("models before Gemini 3 get no stand-in", async () => {
      const call = { id: "call_old", type: "function" as const, function: { name: "get_weather", arguments: '{"city":"Paris"}' } };
      await answerWith("gemini/gemini-2.5-flash", { role: "assistant", content: null, tool_calls: [call] }, call.id);
      expect(sentCall().thoughtSignature).toBeUndefined();
    });
  });

  test("the Responses API reaches a Gemini model as a chat, streamed or not", async () => {
    const response = await openai.responses.create({ model: "gemini/gemini-2.0-flash", instructions: "be brief", input: "hello gemini" });
    expect(response.output_text).toBe("echo: hello gemini");
    expect(gemini.requests.at(-1)!.body.systemInstruction).toEqual({ parts: [{ text: "be brief" }] });
    const streamed = await openai.responses.stream({ model: "gemini/gemini-2.0-flash", input: "one two" }).finalResponse();
    expect(streamed.output_text).toBe("echo: one two");
    expect(streamed.usage?.output_tokens).toBeGreaterThan(0);
  });

  test("reasoning: Gemini's thought parts come back as reasoning_content and thoughtsTokenCount as reasoning tokens", async () => {
    const completion = await openai.chat.completions.create({ model: "gemini/gemini-2.0-flash", messages: [{ role: "user", content: "think hard" }], reasoning_effort: "low" });
    const message = completion.choices[0]!.message as OpenAI.ChatCompletionMessage & { reasoning_content?: string };
    expect(message.content).toBe("echo: think hard");
    expect(message.reasoning_content).toBe("thinking about think hard");
    expect(completion.usage?.completion_tokens_details?.reasoning_tokens).toBe(4);
    expect(completion.usage?.completion_tokens).toBe(3 + 4);
    expect(gemini.requests.at(-1)!.body.generationConfig).toEqual({ thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } });
  });

  test("Gemini's MAX_TOKENS finish is reported as length", async () => {
    const completion = await openai.chat.completions.create({ model: "gemini/gemini-2.0-flash", messages: [{ role: "user", content: "a long answer please" }], max_tokens: 2 });
    expect(completion.choices[0]!.finish_reason).toBe("length");
    expect(completion.choices[0]!.message.content).toBe("echo: a");
    expect(gemini.requests.at(-1)!.body.generationConfig).toEqual({ maxOutputTokens: 2 });
  });

  test("an image given as a data URL reaches Gemini as inlineData", async () => {
    await openai.chat.completions.create({
      model: "gemini/gemini-2.0-flash",
      messages: [{ role: "user", content: [{ type: "text", text: "what is this?" }, { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } }] }],
    });
    expect(gemini.requests.at(-1)!.body.contents).toEqual([{ role: "user", parts: [{ text: "what is this?" }, { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } }] }]);
  });
});
