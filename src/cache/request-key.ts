import { sha256Hex } from "../crypto/sha256-hex";
import type { RequestContext } from "../inference/hooks";
import { type TextAndMedia, textAndMedia } from "../inference/inline-media";
import type { ResolvedCacheConfig } from "./config";

/** Body fields that hold the conversation, across the wire formats, in reading order; the semantic match compares these. */
const CONVERSATION_FIELDS = new Set(["system", "systemInstruction", "system_instruction", "instructions", "messages", "contents", "prompt", "input"]);
/** Structural strings inside a conversation that carry no meaning of their own. */
const STRUCTURAL_KEYS = new Set(["role", "type", "id", "tool_call_id", "cache_control"]);
/** Routing is scoped separately; streaming is part of the scope. */
const SCOPED_FIELDS = new Set(["model", "stream"]);

/** JSON with object keys sorted at every depth: the same value always gives the same text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

const without = (body: Record<string, unknown>, excluded: (key: string) => boolean) => Object.fromEntries(Object.entries(body).filter(([key]) => !excluded(key)));

export interface RequestKeys {
  /** The exact-match key: the whole normalized request. */
  requestHash: string;
  /** The request without its conversation's text: a semantic match must agree on everything else, the images it carries included. */
  paramsHash: string;
}

/**
 * Deterministic keys of a request under a cache key. The scope is the operation, the client's
 * wire format, whether it streams, and (by config) the provider and model of the primary target.
 */
export function requestKeys(context: RequestContext, cacheKey: string, config: ResolvedCacheConfig): RequestKeys {
  const target = context.targets[0];
  const scope = {
    key: cacheKey,
    operation: context.operation,
    format: context.format,
    stream: context.stream,
    provider: config.cacheByProvider ? target?.provider : undefined,
    model: config.cacheByModel ? target?.model : undefined,
  };
  const body = without(context.body, (key) => SCOPED_FIELDS.has(key));
  const media = conversationOf(body).media.map(sha256Hex);
  return {
    requestHash: sha256Hex(canonicalJson({ scope, body })),
    // Absent when there is none, so the hashes of requests without media are what they were.
    paramsHash: sha256Hex(canonicalJson({ scope, body: without(body, (key) => CONVERSATION_FIELDS.has(key)), media: media.length > 0 ? media : undefined })),
  };
}

/**
 * A conversation's text, one piece per string, and the media it carries inline.
 * An image's base64 is no text to compare by meaning: embedded as text it would cost the
 * embedding call megabytes (past its model's context) and let a question about one picture
 * match the same question about another. So media must match exactly, through `paramsHash`.
 */
function conversationOf(body: Record<string, unknown>): TextAndMedia {
  const found: TextAndMedia = { texts: [], media: [] };
  for (const field of CONVERSATION_FIELDS) textAndMedia(body[field], STRUCTURAL_KEYS, found);
  return found;
}

/** What the semantic cache embeds: the conversation's text, one line per piece (system before messages, whatever the field order). */
export function conversationText(body: Record<string, unknown>): string {
  return conversationOf(body).texts.join("\n");
}
