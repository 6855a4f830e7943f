import type { ChatChunk, FinishReason } from "../../canonical";
import type { SseChunkDecoder } from "../sse-chunks";
import { canonicalUsage } from "./usage";

/** OpenAI's legacy text completions (`/v1/completions`, what editors' autocomplete streams), read for logs and budgets. */
interface CompletionBody {
  choices?: Array<{ index?: number; text?: string; finish_reason?: string | null }>;
  usage?: Record<string, unknown> | null;
}

const FINISHES = new Set<FinishReason>(["stop", "length", "content_filter"]);
const finishOf = (reason: string | null | undefined): FinishReason => (FINISHES.has(reason as FinishReason) ? (reason as FinishReason) : null);

/** The body as one canonical chunk: its text, how it ended, its usage. */
function chunkOf(body: CompletionBody): ChatChunk {
  const choices = (body.choices ?? []).map((choice) => ({ index: choice.index ?? 0, delta: { content: choice.text ?? "" }, finish_reason: finishOf(choice.finish_reason) }));
  return { id: "", object: "chat.completion.chunk", created: 0, model: "", choices, ...(body.usage ? { usage: canonicalUsage(body.usage) } : {}) };
}

export function completionOutcome(reply: unknown) {
  const chunk = chunkOf(reply as CompletionBody);
  const [choice] = chunk.choices;
  return { usage: chunk.usage ?? undefined, finishReason: choice?.finish_reason ?? undefined, content: choice?.delta.content ?? undefined, toolCallNames: [] };
}

export const completionSseDecoder = (): SseChunkDecoder => ({
  event: (message) => (message.data === "[DONE]" ? [] : [chunkOf(JSON.parse(message.data) as CompletionBody)]),
  end: () => [],
});
