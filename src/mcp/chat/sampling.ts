import type { CreateMessageRequest, CreateMessageResult } from "@modelcontextprotocol/sdk/types.js";
import { parseCompletion } from "./agent-mode";

type SamplingContent = CreateMessageRequest["params"]["messages"][number]["content"];

/** A sampling message's content as OpenAI chat content: text as is, images as data URLs, anything else described as JSON. */
function chatContent(content: SamplingContent): unknown {
  const blocks = Array.isArray(content) ? content : [content];
  if (blocks.every((block) => block.type === "text")) return blocks.map((block) => (block as { text: string }).text).join("\n");
  return blocks.map((block) => {
    if (block.type === "text") return { type: "text", text: block.text };
    if (block.type === "image") return { type: "image_url", image_url: { url: `data:${block.mimeType};base64,${block.data}` } };
    return { type: "text", text: JSON.stringify(block) };
  });
}

/** An upstream's sampling request as a chat completion request for `model`. */
export function samplingRequestBody(model: string, params: CreateMessageRequest["params"]): Record<string, unknown> {
  return {
    model,
    messages: [...(params.systemPrompt ? [{ role: "system", content: params.systemPrompt }] : []), ...params.messages.map((message) => ({ role: message.role, content: chatContent(message.content) }))],
    max_tokens: params.maxTokens,
    ...(params.temperature === undefined ? {} : { temperature: params.temperature }),
    ...(params.stopSequences ? { stop: params.stopSequences } : {}),
  };
}

const STOP_REASONS: Record<string, string> = { stop: "endTurn", length: "maxTokens", content_filter: "refusal" };

/** The completion as the sampling result; undefined when it is not one. */
export function samplingResult(text: string, model: string): CreateMessageResult | undefined {
  const completion = parseCompletion(text) as { model?: string; choices?: Array<{ message?: { content?: unknown }; finish_reason?: string }> } | undefined;
  const choice = completion?.choices?.[0];
  if (!choice?.message) return undefined;
  const reason = choice.finish_reason ?? "stop";
  return { model: completion?.model ?? model, role: "assistant", content: { type: "text", text: typeof choice.message.content === "string" ? choice.message.content : "" }, stopReason: STOP_REASONS[reason] ?? reason };
}
