import type { ChatResponse, FinishReason, ThinkingBlock, ToolCall, Usage } from "../../canonical";
import { type ClientToolName, clientToolNames } from "./responses-tools";

/** A canonical chat reply written as a Responses API response object, for a client of that API on a provider without one. */

type Body = Record<string, unknown>;

/** What the gateway says of a response it writes: its id, and who wants the whole of it once complete (to store it). */
export interface BridgedResponse {
  id: string;
  completed?(response: Body): void;
}

export function responsesUsageOf(usage: Usage | undefined) {
  if (!usage) return null;
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0 },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: usage.total_tokens,
  };
}

/** `completed`, or `incomplete` with why, from how the turn ended. */
export function statusOf(finish: FinishReason): { status: "completed" | "incomplete"; incomplete_details: { reason: string } | null } {
  if (finish === "length" || finish === "model_context_window_exceeded") return { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } };
  if (finish === "content_filter" || finish === "refusal") return { status: "incomplete", incomplete_details: { reason: "content_filter" } };
  return { status: "completed", incomplete_details: null };
}

const SEALED = "gw-thinking:";

const isThinkingBlock = (block: unknown): block is ThinkingBlock => {
  const candidate = block as Record<string, unknown> | null;
  return (candidate?.type === "thinking" && typeof candidate.thinking === "string") || (candidate?.type === "redacted_thinking" && typeof candidate.data === "string");
};

/**
 * A provider's signed thinking (Anthropic's), carried in a reasoning item's `encrypted_content`,
 * opaque to the client as OpenAI's own is, so that the next turn hands it back: Anthropic refuses
 * a turn of tool calls without the thinking that led to it while thinking is on.
 */
export const sealThinking = (blocks: readonly ThinkingBlock[]) => SEALED + Buffer.from(JSON.stringify(blocks)).toString("base64");

export function unsealThinking(content: unknown): ThinkingBlock[] | undefined {
  if (typeof content !== "string" || !content.startsWith(SEALED)) return undefined;
  try {
    const blocks: unknown = JSON.parse(Buffer.from(content.slice(SEALED.length), "base64").toString());
    return Array.isArray(blocks) && blocks.every(isThinkingBlock) ? blocks : undefined;
  } catch {
    return undefined;
  }
}

const sealedByGateway = (item: unknown) => {
  const candidate = item as { type?: unknown; encrypted_content?: unknown } | null;
  return candidate?.type === "reasoning" && typeof candidate.encrypted_content === "string" && candidate.encrypted_content.startsWith(SEALED);
};

/**
 * A Responses body for OpenAI's own API: without the reasoning items the gateway sealed for
 * another provider (a conversation that moved, by fallback or by choice), which OpenAI cannot
 * decrypt and refuses. The body itself when it holds none.
 */
export function withoutSealedThinking(body: Body): Body {
  const input = body.input;
  if (!Array.isArray(input) || !input.some(sealedByGateway)) return body;
  return { ...body, input: input.filter((item) => !sealedByGateway(item)) };
}

/**
 * An output item's id: its kind, the response's id and its place in the output, so that a later
 * request referring to it (`item_reference`) finds the response it is kept with.
 */
export const outputItemId = (kind: "rs" | "msg" | "fc", responseId: string, index: number) => `${kind}_${responseId.replace(/^resp_/, "")}_${index}`;

/** The model's reasoning as a reasoning item: its text as the summary, its signed blocks sealed. */
export const reasoningItem = (id: string, text: string, blocks: readonly ThinkingBlock[] | undefined) => ({
  type: "reasoning",
  id,
  summary: text ? [{ type: "summary_text", text }] : [],
  ...(blocks?.length ? { encrypted_content: sealThinking(blocks) } : {}),
});

/** A text part as OpenAI's reference requires it: token log probabilities are never asked of another provider, so none. */
export const outputText = (text: string) => ({ type: "output_text", text, annotations: [], logprobs: [] });

export const messageItem = (id: string, text: string, status: "in_progress" | "completed") => ({
  type: "message",
  id,
  status,
  role: "assistant",
  content: status === "completed" ? [outputText(text)] : [],
});

/** A call as a function_call item; `names` gives a flattened namespace tool its client's name and namespace back. */
export const functionCallItem = (id: string, call: ToolCall, status: "in_progress" | "completed", names?: (name: string) => ClientToolName) => ({
  type: "function_call",
  id,
  call_id: call.id,
  ...(names ? names(call.function.name) : { name: call.function.name }),
  arguments: status === "completed" ? call.function.arguments : "",
  status,
});

/** The request's settings a response object repeats, as OpenAI's does. */
const echoedSettings = (clientBody: Body) => ({
  instructions: clientBody.instructions ?? null,
  max_output_tokens: clientBody.max_output_tokens ?? null,
  parallel_tool_calls: clientBody.parallel_tool_calls ?? true,
  temperature: clientBody.temperature ?? null,
  text: clientBody.text ?? { format: { type: "text" } },
  tool_choice: clientBody.tool_choice ?? "auto",
  tools: clientBody.tools ?? [],
  top_p: clientBody.top_p ?? null,
  metadata: clientBody.metadata ?? {},
  previous_response_id: clientBody.previous_response_id ?? null,
  background: clientBody.background === true,
});

/** The start of a response object the gateway writes: what it is and the settings it repeats. */
export const responseHead = (bridged: BridgedResponse, clientBody: Body, created: number, model: string) => ({
  id: bridged.id,
  object: "response",
  created_at: created,
  model,
  ...echoedSettings(clientBody),
  store: bridged.completed !== undefined,
});

export function responseOfChat(response: ChatResponse, clientBody: Body, bridged: BridgedResponse): Body {
  const choice = response.choices[0];
  const message = choice?.message;
  const text = typeof message?.content === "string" ? message.content : "";
  const reasoning = message?.reasoning_content ?? "";
  const thinking = message?.thinking_blocks;
  const names = clientToolNames(clientBody);
  const output = [
    ...(reasoning || thinking?.length ? [(index: number) => reasoningItem(outputItemId("rs", bridged.id, index), reasoning, thinking)] : []),
    ...(text ? [(index: number) => messageItem(outputItemId("msg", bridged.id, index), text, "completed")] : []),
    ...(message?.tool_calls ?? []).map((call) => (index: number) => functionCallItem(outputItemId("fc", bridged.id, index), call, "completed", names)),
  ].map((item, index) => item(index));
  const written = {
    ...responseHead(bridged, clientBody, Math.floor(Date.now() / 1000), response.model),
    ...statusOf(choice?.finish_reason ?? null),
    error: null,
    output,
    usage: responsesUsageOf(response.usage),
  };
  bridged.completed?.(written);
  return written;
}
