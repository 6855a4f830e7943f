import { estimateInputTokens } from "../../token-count";
import { chatRequestOfResponses } from "./responses-request";

/** `POST /v1/responses/input_tokens` answered by the gateway, for targets without OpenAI's Responses API. */
export async function countResponsesTokensLocally(body: Record<string, unknown>) {
  return { object: "response.input_tokens", input_tokens: await estimateInputTokens(chatRequestOfResponses(body)) };
}
