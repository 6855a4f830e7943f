/** Inline media shorter than this is treated as text. */
const MEDIA_MIN_LENGTH = 1024;
/** `data:image/png;base64,` and the like: a data URL's media type and parameters. */
const BASE64_DATA_URL = /^data:([\w.+-]+\/[\w.+-]+)?(?:;[\w.+-]+=[^;,]*)*;base64,/i;
/** Base64's alphabet, standard and URL-safe. */
const BASE64_RUN = `[A-Za-z0-9+/_-]{${MEDIA_MIN_LENGTH}}`;
/** Text has spaces and punctuation within its first KiB; base64 has none. */
const BASE64_START = new RegExp(`^${BASE64_RUN}`);
/** A base64 `data` field (Anthropic, Gemini, audio) or `bytes` field (Bedrock) in a serialized request. */
const MEDIA_FIELD_IN_JSON = new RegExp(`"(?:data|bytes)":"${BASE64_RUN}`);
/**
 * Base64 of binary data mixes lower case, upper case and digits within any KiB; a long run of one
 * kind (a DNA sequence, a hex digest, a word repeated) is text a person sent.
 */
const MIXED = [/[a-z]/, /[A-Z]/, /[0-9]/];

export interface InlineMedia {
  /** As the data URL names it; a bare base64 field names none. */
  mediaType?: string;
  /** Characters of base64. */
  length: number;
}

/**
 * An image, audio or document a request carries as base64, in a data URL or a bare field
 * (Anthropic's `source.data`, Gemini's `inline_data.data`, Bedrock's `bytes`); undefined for text.
 * Such strings are not text the model reads as tokens, nor text worth logging or searching.
 */
export function inlineMedia(value: string): InlineMedia | undefined {
  if (value.length < MEDIA_MIN_LENGTH) return undefined;
  const dataUrl = BASE64_DATA_URL.exec(value);
  if (dataUrl) return { mediaType: dataUrl[1], length: value.length - dataUrl[0].length };
  if (!BASE64_START.test(value)) return undefined;
  const start = value.slice(0, MEDIA_MIN_LENGTH);
  return MIXED.every((kind) => kind.test(start)) ? { length: value.length } : undefined;
}

/**
 * Whether a request serialized as JSON, in any client format, may carry inline media: it has a
 * data URL or a long base64 `data`/`bytes` field. Scanning the text (~50 µs for 200 KB) is far
 * cheaper than looking at every value of the body.
 */
export const mayHoldInlineMedia = (json: string): boolean => json.includes(";base64,") || MEDIA_FIELD_IN_JSON.test(json);

export interface TextAndMedia {
  texts: string[];
  media: string[];
}

/**
 * The strings of a request body under `value`, in reading order, but those under `skippedKeys`
 * (names such as roles): text, with inline media apart. Added to `into` when given.
 */
export function textAndMedia(value: unknown, skippedKeys: ReadonlySet<string>, into: TextAndMedia = { texts: [], media: [] }): TextAndMedia {
  if (typeof value === "string") (inlineMedia(value) ? into.media : into.texts).push(value);
  else if (Array.isArray(value)) for (const item of value) textAndMedia(item, skippedKeys, into);
  else if (value && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) if (!skippedKeys.has(key)) textAndMedia(item, skippedKeys, into);
  }
  return into;
}
