import { estimateInputTokens } from "../../token-count";
import { messagesRequestToCanonical } from "./request-decode";
import type { MessagesRequest } from "./wire";

/** count_tokens answered by the gateway, for targets whose provider cannot count Anthropic content. */
export async function countMessagesTokensLocally(body: Record<string, unknown>) {
  const request = messagesRequestToCanonical({ ...(body as unknown as MessagesRequest), max_tokens: 1 });
  return { input_tokens: await estimateInputTokens(request) };
}
