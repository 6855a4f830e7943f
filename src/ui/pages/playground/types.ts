type TextPart = { type: "text"; text: string };
type ImagePart = { type: "image_url"; image_url: { url: string } };
export type ChatMessage = { role: "system"; content: string } | { role: "user"; content: string | Array<TextPart | ImagePart> };

export interface ChatTool {
  type: "function";
  function: { name: string; description?: string; parameters: Record<string, unknown> };
}

/** The `/v1/chat/completions` body a run sends, exactly as the code view shows it. */
export interface ChatBody {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage: boolean };
  temperature?: number;
  max_tokens?: number;
  tools?: ChatTool[];
}
