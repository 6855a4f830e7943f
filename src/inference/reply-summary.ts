import type { GatewayError } from "../http/errors";
import { type BilledUnits, replyUnits } from "./billed-units";
import type { ChatChunk, ChatResponse, FinishReason, Usage } from "./canonical";
import { canonicalUsage } from "./formats/openai/usage";
import { FORMATS } from "./formats/registry";
import type { Operation, WireFormat } from "../upstream/operations";
import { LARGE_REPLY, type ReadBody } from "./reply-body";
import { type VideoState, videoStateOf } from "./videos/state";

/** What logs, budgets and metrics need to know about a reply, whatever format it came in. */
export interface ReplySummary {
  usage?: Usage;
  /** What a reply priced by the unit (images, seconds of audio or video) is billed for. */
  units?: BilledUnits;
  finishReason?: FinishReason;
  /** Names of the tools the model called: kept even when content logging is off. */
  toolCallNames: string[];
  /** The assistant's text, assembled from the stream when streamed. */
  content?: string;
  /** Set for streams: from the request's start to the first content chunk. */
  timeToFirstTokenMs?: number;
  /** A stream that ended before its natural end (client gone, upstream cut). */
  truncated?: boolean;
  /** The video a create started, or a read found, and how it stands. */
  video?: VideoState;
  /** The error a stream reported midway (its provider's error event), after the 200 went out. */
  failure?: GatewayError;
}

function summarizeChat(response: ChatResponse): ReplySummary {
  const choice = response.choices[0];
  const content = choice?.message.content;
  return {
    usage: response.usage,
    finishReason: choice?.finish_reason ?? undefined,
    toolCallNames: choice?.message.tool_calls?.map((call) => call.function.name) ?? [],
    content: typeof content === "string" ? content : undefined,
  };
}

/** OpenAI-style bodies (embeddings, completions, responses) carry usage at the top level. */
function summarizeGeneric(body: { usage?: Record<string, unknown> | null }): ReplySummary {
  return body.usage ? { toolCallNames: [], usage: canonicalUsage(body.usage) } : { toolCallNames: [] };
}

/** How far from the end a top-level `usage` is looked for. */
const USAGE_TAIL = 4096;

/**
 * The top-level `usage` of a large OpenAI-style reply read from its tail: `"usage": {...}` and
 * any fields after it, wrapped in braces, parse as an object only when `usage` is a key of the
 * outermost one (in a nested object the braces do not balance; inside a string the quotes are
 * escaped). An embeddings batch runs to tens of MB, and parsing it whole held the event loop for
 * ~100 ms per request; undefined sends the caller to the full parse.
 */
function usageFromTail(text: string): { usage?: Record<string, unknown> } | undefined {
  const at = text.lastIndexOf('"usage"');
  if (at < 0 || text.length - at > USAGE_TAIL) return undefined;
  try {
    const tail = JSON.parse(`{${text.slice(at, text.trimEnd().length - 1)}}`) as { usage?: unknown };
    return tail.usage && typeof tail.usage === "object" ? (tail as { usage: Record<string, unknown> }) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Summarizes a buffered reply written in `format`, from what was `read` of it on arrival where it
 * was (never parsed twice); an unreadable body yields an empty summary.
 */
export function summarizeReply(operation: Operation, format: WireFormat, text: string, read?: ReadBody): ReplySummary {
  try {
    if (read?.chat) return summarizeChat(read.chat);
    const tail = read?.json === undefined && operation !== "chat" && text.length >= LARGE_REPLY ? usageFromTail(text) : undefined;
    if (tail) return summarizeGeneric(tail);
    const body = read?.json ?? JSON.parse(text);
    const chat = FORMATS[format]?.chat;
    if (operation === "chat" && chat) return summarizeChat(chat.decodeResponse(body));
    const reader = FORMATS[format]?.replies?.[operation];
    const summary = reader ? reader.summarize(body) : summarizeGeneric(body);
    const units = replyUnits(operation, body);
    const video = videoStateOf(operation, body);
    return units || video ? { ...summary, ...(units ? { units } : {}), ...(video ? { video } : {}) } : summary;
  } catch {
    return { toolCallNames: [] };
  }
}

/** Folds canonical chunks into a summary as they pass. */
/** Content pieces joined into one string at a time: an open stream then holds a few strings, not one (and a rope node) per token. */
const PIECES_A_BLOCK = 64;

export class ChunkAccumulator {
  private readonly blocks: string[] = [];
  private pieces: string[] = [];
  private readonly tools = new Map<number, string>();
  readonly summary: ReplySummary = { toolCallNames: [] };
  /** Characters of content and tool arguments so far, for what a stream has written before its usage comes. */
  outputCharacters = 0;

  constructor(private readonly startedAt: number) {}

  /** The time of the first byte, for streams whose chunks are decoded only after they ended. */
  markFirstByte(at: number) {
    this.summary.timeToFirstTokenMs ??= at - this.startedAt;
  }

  add(chunk: ChatChunk) {
    if (chunk.usage) this.summary.usage = chunk.usage;
    for (const choice of chunk.choices) {
      const delta = choice.delta;
      if (delta.content) {
        this.summary.timeToFirstTokenMs ??= performance.now() - this.startedAt;
        this.pieces.push(delta.content);
        this.outputCharacters += delta.content.length;
        if (this.pieces.length === PIECES_A_BLOCK) {
          this.blocks.push(this.pieces.join(""));
          this.pieces = [];
        }
      }
      for (const call of delta.tool_calls ?? []) {
        this.summary.timeToFirstTokenMs ??= performance.now() - this.startedAt;
        if (call.function?.name) this.tools.set(call.index, call.function.name);
        this.outputCharacters += call.function?.arguments?.length ?? 0;
      }
      if (choice.finish_reason) this.summary.finishReason = choice.finish_reason;
    }
  }

  /** `failure`: what ended the stream early, when the upstream did (an earlier error event of its own stands). */
  finish(truncated: boolean, failure?: GatewayError): ReplySummary {
    if (failure) this.summary.failure ??= failure;
    this.summary.content = this.blocks.join("") + this.pieces.join("");
    this.summary.toolCallNames = [...this.tools.values()];
    this.summary.truncated = truncated;
    return this.summary;
  }
}
