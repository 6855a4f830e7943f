import { expect } from "bun:test";

/**
 * The fields OpenAI's published OpenAPI document (openai-openapi, document version 2.3.0) marks
 * `required` in the replies the gateway writes itself, as the clients generated from that
 * document read them (openai-client-base on docs.rs, generated from it; ex_openai's components,
 * which list each field as required or not). Only the required lists are kept here, per schema.
 */
export const REQUIRED = {
  CreateChatCompletionResponse: ["id", "object", "created", "model", "choices"],
  "CreateChatCompletionResponse.choices[]": ["index", "message", "finish_reason", "logprobs"],
  ChatCompletionResponseMessage: ["role", "content", "refusal"],
  ChatCompletionMessageToolCall: ["id", "type", "function"],
  "ChatCompletionMessageToolCall.function": ["name", "arguments"],
  CompletionUsage: ["prompt_tokens", "completion_tokens", "total_tokens"],
  CreateChatCompletionStreamResponse: ["id", "object", "created", "model", "choices"],
  "CreateChatCompletionStreamResponse.choices[]": ["index", "delta", "finish_reason"],
  CreateEmbeddingResponse: ["object", "model", "data", "usage"],
  Embedding: ["index", "object", "embedding"],
  "CreateEmbeddingResponse.usage": ["prompt_tokens", "total_tokens"],
  Response: ["id", "object", "created_at", "model", "output", "error", "incomplete_details", "instructions", "tools", "tool_choice", "parallel_tool_calls", "metadata", "temperature", "top_p"],
  OutputMessage: ["id", "type", "role", "content", "status"],
  OutputTextContent: ["type", "text", "annotations", "logprobs"],
  FunctionToolCall: ["type", "call_id", "name", "arguments"],
  ResponseUsage: ["input_tokens", "input_tokens_details", "output_tokens", "output_tokens_details", "total_tokens"],
  "ResponseUsage.input_tokens_details": ["cached_tokens"],
  "ResponseUsage.output_tokens_details": ["reasoning_tokens"],
  ResponseTextDeltaEvent: ["type", "item_id", "output_index", "content_index", "delta", "sequence_number", "logprobs"],
  ResponseTextDoneEvent: ["type", "item_id", "output_index", "content_index", "text", "sequence_number", "logprobs"],
} as const;

export type SchemaName = keyof typeof REQUIRED;

/** The required fields `value` lacks (a field present as null counts as present), named `schema.field`. */
export function missingFields(schema: SchemaName, value: unknown): string[] {
  const object = (value ?? {}) as Record<string, unknown>;
  return REQUIRED[schema].filter((field) => !(field in object)).map((field) => `${schema}.${field}`);
}

/** Asserts that a chat completion carries every required field, its choices, messages, tool calls and usage included. */
export function expectChatCompletion(body: Record<string, unknown>): void {
  const choices = (body.choices ?? []) as Array<Record<string, unknown>>;
  const messages = choices.map((choice) => choice.message as Record<string, unknown>);
  const calls = messages.flatMap((message) => (message?.tool_calls ?? []) as Array<Record<string, unknown>>);
  expect([
    ...missingFields("CreateChatCompletionResponse", body),
    ...choices.flatMap((choice) => missingFields("CreateChatCompletionResponse.choices[]", choice)),
    ...messages.flatMap((message) => missingFields("ChatCompletionResponseMessage", message)),
    ...calls.flatMap((call) => [...missingFields("ChatCompletionMessageToolCall", call), ...missingFields("ChatCompletionMessageToolCall.function", call.function)]),
    ...(body.usage ? missingFields("CompletionUsage", body.usage) : []),
  ]).toEqual([]);
}
