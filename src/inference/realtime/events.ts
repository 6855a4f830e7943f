import type { FinishReason, Usage } from "../canonical";
import { canonicalUsage } from "../formats/openai/usage";
import type { ReplySummary } from "../reply-summary";

/**
 * The Realtime API's server events, read only as far as logs and budgets need: which event a
 * message is, and what a finished response (`response.done`) used and said.
 */

/** The API writes `type` first; audio deltas run to many kilobytes, so only the head is searched. */
const TYPE_AT_HEAD = /^\s*\{\s*"type"\s*:\s*"([\w.]+)"/;

export function eventTypeOf(message: string): string | undefined {
  return TYPE_AT_HEAD.exec(message.length > 128 ? message.slice(0, 128) : message)?.[1];
}

interface ContentPart {
  type: string;
  text?: string;
  transcript?: string;
}

interface OutputItem {
  type: string;
  name?: string;
  content?: ContentPart[];
}

export interface RealtimeResponse {
  id?: string;
  status?: "completed" | "cancelled" | "failed" | "incomplete" | "in_progress";
  status_details?: { reason?: string; error?: { message?: string; code?: string } | null } | null;
  output?: OutputItem[];
  usage?: Record<string, unknown> | null;
}

/** Every response starts with `response.created` and ends with `response.done`, whatever stopped it; an event that does not parse names none. */
export function responseOf(message: string): RealtimeResponse {
  try {
    return (JSON.parse(message) as { response?: RealtimeResponse }).response ?? {};
  } catch {
    return {};
  }
}

/** The model a session runs, from its `session.created`; undefined when the event names none. */
export function sessionModelOf(message: string): string | undefined {
  try {
    const model = (JSON.parse(message) as { session?: { model?: unknown } }).session?.model;
    return typeof model === "string" && model.length > 0 ? model : undefined;
  } catch {
    return undefined;
  }
}

function finishOf(response: RealtimeResponse, calledTools: boolean): FinishReason {
  if (response.status === "incomplete") return response.status_details?.reason === "content_filter" ? "content_filter" : "length";
  if (calledTools) return "tool_calls";
  return response.status === "completed" ? "stop" : null;
}

/** What the model wrote or said: text parts, and the transcript of audio parts. */
const spokenOrWritten = (part: ContentPart) => part.text ?? part.transcript ?? "";

/** A finished response as a log row and a charge read it. */
export function responseSummary(response: RealtimeResponse): ReplySummary {
  const output = response.output ?? [];
  const toolCallNames = output.flatMap((item) => (item.type === "function_call" && item.name ? [item.name] : []));
  const usage: Usage | undefined = response.usage ? canonicalUsage(response.usage) : undefined;
  return {
    usage,
    toolCallNames,
    finishReason: finishOf(response, toolCallNames.length > 0),
    content: output.flatMap((item) => (item.type === "message" ? (item.content ?? []).map(spokenOrWritten) : [])).join(""),
    truncated: response.status === "cancelled",
  };
}
