import { estimateInputTokens } from "../../token-count";
import { generateContentToCanonical } from "./request";
import type { CountTokensRequest } from "./schemas";

/** countTokens answered by the gateway, for targets whose provider cannot count Gemini content. */
export async function countGenaiTokensLocally(body: Record<string, unknown>) {
  const { generateContentRequest, contents } = body as CountTokensRequest;
  const request = generateContentToCanonical({ ...(generateContentRequest ?? { contents: contents ?? [] }) } as Record<string, unknown>);
  return { totalTokens: await estimateInputTokens(request) };
}
