import type { ChatMessage, ChatRequest, ContentPart } from "../../canonical";

const carriesMedia = (message: ChatMessage) => message.role === "tool" && Array.isArray(message.content) && message.content.some((part) => part.type !== "text");

/** Stands in for a tool result that was only images or files, which follow it in a user turn. */
const SHOWN_BELOW = "(the tool's result is the content of the next message)";

/**
 * OpenAI's tool messages hold text only, where another format's tool result may hold images or
 * files (Anthropic's tool_result does). Those move into a user message right after the run of
 * tool messages, which keep their text; a request without such a result is returned as it is.
 */
export function withToolMediaAsUserTurn(request: ChatRequest): ChatRequest {
  if (!request.messages.some(carriesMedia)) return request;
  const messages: ChatMessage[] = [];
  let held: ContentPart[] = [];
  const release = () => {
    if (held.length > 0) messages.push({ role: "user", content: held });
    held = [];
  };
  for (const message of request.messages) {
    if (!carriesMedia(message)) {
      if (message.role !== "tool") release();
      messages.push(message);
      continue;
    }
    const parts = message.content as ContentPart[];
    const text = parts.filter((part) => part.type === "text");
    held.push(...parts.filter((part) => part.type !== "text"));
    messages.push({ ...message, content: text.length > 0 ? text : SHOWN_BELOW });
  }
  release();
  return { ...request, messages };
}
