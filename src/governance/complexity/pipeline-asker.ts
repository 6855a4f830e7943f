import { handleInference, type Inference } from "../../inference/handle";
import { type AskModel, CLASSIFIER_CALLER } from "./model-classifier";

/** A reply of a few tokens is all a tier's name needs. */
const MAX_TOKENS = 16;

/**
 * Asks through the gateway's own pipeline as an OpenAI-format chat: the call is logged (as the
 * gateway's own, `internal_caller`), priced and routed like any other, without a virtual key.
 */
export function pipelineAsker(inference: () => Inference): AskModel {
  return async (model, messages, signal) => {
    const body = { model, messages, max_tokens: MAX_TOKENS, temperature: 0 };
    const request = new Request("http://gateway.internal/v1/chat/completions", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal });
    const response = await handleInference(inference(), { operation: "chat", format: "openai", body, model, fallbacks: [], stream: false, request, internalCaller: CLASSIFIER_CALLER });
    if (!response.ok) throw new Error(`it answered ${response.status}`);
    const reply = (await response.json()) as { choices?: Array<{ message?: { content?: unknown } }> };
    const content = reply.choices?.[0]?.message?.content;
    return typeof content === "string" ? content : "";
  };
}
