import type { ChatResponse } from "./canonical";
import { FORMATS } from "./formats/registry";
import type { Operation, WireFormat } from "../upstream/operations";

/** Operations whose reply is a JSON object whatever the client asked (a transcription may be plain text, a file's content anything). */
const ANSWERS_JSON: ReadonlySet<Operation> = new Set<Operation>([
  "chat",
  "text_completion",
  "embedding",
  "responses",
  "count_tokens",
  "input_tokens",
  "rerank",
  "moderation",
  "image_generation",
  "image_edit",
]);

/** A reply this long is not parsed whole when it is not a chat: its usage is read from its tail (see reply-summary.ts). */
export const LARGE_REPLY = 1024 * 1024;

/** A 2xx reply's body as read once, on arrival: what its translation and its summary then use. */
export interface ReadBody {
  /** The parsed body; unset for a reply not read whole (a large one, or one that need not be JSON). */
  json?: unknown;
  /** A chat reply decoded into the canonical shape. */
  chat?: ChatResponse;
}

const NOTHING_READ: ReadBody = {};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** A large body is only checked to be one JSON object: an HTML page or a truncated body is not. */
const looksLikeObject = (text: string) => /^\s*\{/.test(text.slice(0, 64)) && /\}\s*$/.test(text.slice(-64));

/**
 * Reads a 2xx reply to `operation` written in `format`, the one time it is parsed. Undefined
 * when the body is not that format's answer (a proxy's HTML page, a body cut short, a chat
 * without choices): the attempt failed, as any other upstream failure does.
 */
export function readReplyBody(operation: Operation, format: WireFormat, text: string): ReadBody | undefined {
  if (!ANSWERS_JSON.has(operation)) return NOTHING_READ;
  if (operation !== "chat" && text.length >= LARGE_REPLY) return looksLikeObject(text) ? NOTHING_READ : undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(json)) return undefined;
  const codec = operation === "chat" ? FORMATS[format]?.chat : undefined;
  if (!codec) return { json };
  try {
    const chat = codec.decodeResponse(json);
    return Array.isArray(chat?.choices) ? { json, chat } : undefined;
  } catch {
    return undefined;
  }
}

/** Operations whose streams are events (SSE, or Bedrock's binary event stream), whatever the provider. */
const STREAMS_EVENTS: ReadonlySet<Operation> = new Set<Operation>(["chat", "text_completion", "responses"]);

/** What a stream of events never comes as: a web page (a proxy's error), or one JSON body (an error object, a server that ignored `stream`). */
const NOT_A_STREAM = /text\/html|json/i;

/** Whether a 2xx to a streamed call is a stream at all, by its content type (a reply without one gets the benefit of the doubt). */
export const isStreamReply = (operation: Operation, headers: Headers) => !STREAMS_EVENTS.has(operation) || !NOT_A_STREAM.test(headers.get("content-type") ?? "");
