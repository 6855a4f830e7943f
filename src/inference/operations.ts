/** What a request asks for, independent of the wire format it was written in. */
export type Operation = "chat" | "text_completion" | "embedding" | "responses" | "count_tokens" | "rerank" | "invoke";

/** The wire formats clients and upstreams speak. */
export type WireFormat = "openai" | "anthropic" | "genai" | "bedrock" | "cohere";

/** The `object` a log row and an error's `request_type` name for each operation. */
export const REQUEST_TYPE: Record<Operation, string> = {
  chat: "chat.completion",
  text_completion: "text_completion",
  embedding: "embedding",
  responses: "response",
  count_tokens: "count_tokens",
  rerank: "rerank",
  invoke: "invoke",
};
