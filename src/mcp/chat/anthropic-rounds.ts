import { resultText } from "../tools/call-result";
import type { OfferedTool } from "../tools/catalogue";
import type { ToolCall } from "../tools/executor";
import { allRunHere, type AnsweredCall, imagesOf, isImage, type OwnTools } from "./agent-mode";

interface ContentBlock {
  type?: unknown;
  id?: unknown;
  name?: unknown;
  input?: unknown;
}

/** An Anthropic-format reply whose tool calls the gateway runs: its content, to send back as the assistant turn, and its calls. */
export interface AnthropicRound {
  content: ContentBlock[];
  calls: ToolCall[];
}

const asCall = (block: ContentBlock): ToolCall => ({ id: String(block.id), function: { name: String(block.name), arguments: JSON.stringify(block.input ?? {}) } });

/** The reply's `tool_use` blocks as calls, when the model stopped for them and the gateway runs every one (an auto-executable MCP tool, or its own `search_tools`). */
export function anthropicRound(text: string, offered: readonly OfferedTool[], own?: OwnTools): AnthropicRound | undefined {
  let reply: { stop_reason?: unknown; content?: unknown };
  try {
    reply = JSON.parse(text) as typeof reply;
  } catch {
    return undefined;
  }
  return reply.stop_reason === "tool_use" && Array.isArray(reply.content) ? anthropicCalls(reply.content as ContentBlock[], offered, own) : undefined;
}

/** An assistant turn's `tool_use` blocks as calls, when the gateway runs every one. */
export function anthropicCalls(content: ContentBlock[], offered: readonly OfferedTool[], own?: OwnTools): AnthropicRound | undefined {
  const calls = content.filter((block) => block?.type === "tool_use").map(asCall);
  return allRunHere(calls, offered, own) ? { content, calls } : undefined;
}

/** A tool's answer as a `tool_result` block: its text, and its images as image blocks beside it. */
function toolResultBlock({ call, result }: AnsweredCall) {
  const images = imagesOf(result);
  const text = resultText({ ...result, content: result.content?.filter((part) => !isImage(part)) });
  const content = [...(text ? [{ type: "text", text }] : []), ...images.map((image) => ({ type: "image", source: { type: "base64", media_type: image.mimeType, data: image.data } }))];
  return { type: "tool_result", tool_use_id: call.id, ...(content.length > 0 ? { content } : {}), ...(result.isError ? { is_error: true } : {}) };
}

/** The request of the next round: the conversation so far, the round's assistant turn, and a user turn with each call's result. */
export const anthropicNextRound = (body: Record<string, unknown>, round: AnthropicRound, answered: readonly AnsweredCall[]): Record<string, unknown> => ({
  ...body,
  messages: [...(body.messages as unknown[]), { role: "assistant", content: round.content }, { role: "user", content: answered.map(toolResultBlock) }],
});
