import { encodeSSE } from "../../http/sse";

/** The server-sent events of POST /api/warp/chat, in the order they can occur. */
export interface ChatEvents {
  start: { conversation_id: string; provider: string; model: string };
  delta: { content: string };
  tool_call_start: { id: string; name: string; arguments: string; iteration: number };
  tool_call_end: { id: string; name: string; ok: boolean; result?: unknown; truncated?: boolean; error?: string };
  error: Record<string, unknown>;
  done: { conversation_id: string; finish_reason: string; iterations: number; usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number } };
}

export type EmitChatEvent = <Name extends keyof ChatEvents>(name: Name, data: ChatEvents[Name]) => void;

export const encodeChatEvent = <Name extends keyof ChatEvents>(name: Name, data: ChatEvents[Name]) => encodeSSE(data, name);
