import type { ChatChunk } from "../../canonical";
import type { SseChunkDecoder } from "../sse-chunks";
import { canonicalUsage } from "./usage";

/**
 * Speech asked for with `stream_format: "sse"`: its `speech.audio.done` event reports the text
 * tokens read and the audio tokens made, the only place the audio out is counted. Audio asked for
 * as bytes reports nothing, and is not read.
 */
const speechSseDecoder = (): SseChunkDecoder => ({
  event(message) {
    const event = JSON.parse(message.data) as { type?: unknown; usage?: Record<string, unknown> };
    if (event.type !== "speech.audio.done" || !event.usage) return [];
    return [{ id: "", object: "chat.completion.chunk", created: 0, model: "", choices: [], usage: canonicalUsage(event.usage) } satisfies ChatChunk];
  },
  end: () => [],
});

export const speechReader = {
  sseDecoder: (contentType: string | null) => (contentType?.startsWith("text/event-stream") ? speechSseDecoder() : undefined),
  summarize: () => ({ toolCallNames: [] }),
};
