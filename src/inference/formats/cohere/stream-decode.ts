import { type SseChunkDecoder, sseChunkStream } from "../sse-chunks";
import type { ChatChunk } from "../../canonical";
import { type CitedDelta, finishFromCohere, usageFromCohere } from "./mappings";
import type { CohereStreamEvent } from "./wire";

type ChunkFields = Pick<ChatChunk["choices"][number], "finish_reason"> & { delta: CitedDelta; usage?: ChatChunk["usage"] };

/** The canonical delta one Cohere event carries, or nothing for events that only open or close a block. */
function deltaOf(event: CohereStreamEvent): ChunkFields | undefined {
  switch (event.type) {
    case "message-start":
      return { delta: { role: "assistant", content: "" }, finish_reason: null };
    case "content-start":
    case "content-delta": {
      const content = event.delta.message.content;
      if ("thinking" in content && content.thinking) return { delta: { reasoning_content: content.thinking }, finish_reason: null };
      return "text" in content && content.text ? { delta: { content: content.text }, finish_reason: null } : undefined;
    }
    case "tool-plan-delta":
      return { delta: { content: event.delta.message.tool_plan }, finish_reason: null };
    case "tool-call-start": {
      const call = event.delta.message.tool_calls;
      return { delta: { tool_calls: [{ index: event.index, id: call.id, type: "function", function: { name: call.function.name, arguments: call.function.arguments ?? "" } }] }, finish_reason: null };
    }
    case "tool-call-delta":
      return { delta: { tool_calls: [{ index: event.index, function: { arguments: event.delta.message.tool_calls.function.arguments } }] }, finish_reason: null };
    case "citation-start":
      return { delta: { annotations: [event.delta.message.citations] }, finish_reason: null };
    case "message-end":
      return { delta: {}, finish_reason: finishFromCohere(event.delta.finish_reason), usage: usageFromCohere(event.delta.usage) };
    default:
      return undefined;
  }
}

/** Cohere v2 SSE (`event: <type>` + JSON data) in, canonical chunks out; usage rides on the finishing chunk. */
export function cohereSseDecoder(): SseChunkDecoder {
  let id = "";
  const created = Math.floor(Date.now() / 1000);
  return {
    event(message): ChatChunk[] {
      if (message.data === "[DONE]" || !message.data) return [];
      const event = JSON.parse(message.data) as CohereStreamEvent;
      if (event.type === "message-start" && event.id) id = event.id;
      const fields = deltaOf(event);
      if (!fields) return [];
      const { usage, ...choice } = fields;
      return [{ id, object: "chat.completion.chunk", created, model: "", choices: [{ index: 0, ...choice }], ...(usage ? { usage } : {}) }];
    },
    end: () => [],
  };
}

export const decodeCohereStream = () => sseChunkStream(cohereSseDecoder());
