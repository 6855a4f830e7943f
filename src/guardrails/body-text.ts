/** Keys whose string values (or arrays of strings) are what a person or model wrote, in every wire format. */
const INPUT_KEYS = new Set(["content", "text", "input", "instructions", "system", "prompt", "output", "query"]);
/**
 * In replies, what the model wrote, tool call arguments included (a model can leak a secret
 * through them); not the request fields a reply echoes (a Response's `instructions`).
 */
const OUTPUT_KEYS = new Set(["content", "text", "output_text", "arguments", "refusal"]);
/** Parts of a body that configure the call rather than carry text. */
const SKIPPED_KEYS = new Set(["model", "tools", "tool_choice", "functions", "response_format", "metadata", "text_format", "generationConfig", "safetySettings"]);
/** What the input's pattern checks skip: only the model's name. */
const MODEL_ONLY = new Set(["model"]);
const BASE64_ONLY = /^[A-Za-z0-9+/=_\r\n-]+$/;
/** Inline media (a data: URL, a long base64 run) holds no text: it is not scanned. */
const isInlineMedia = (value: string) => value.startsWith("data:") || (value.length > 1024 && BASE64_ONLY.test(value));

export type Stage = "input" | "output";

const keysOf = (stage: Stage) => (stage === "input" ? INPUT_KEYS : OUTPUT_KEYS);

/** Which keys' strings are text. */
interface KeySet {
  has(key: string): boolean;
}

/** Every key a provider receives, for the input's pattern checks: a secret may hide in any of them (a tool call's arguments, `user`, `name`). */
const EVERY_KEY: KeySet = { has: () => true };

/**
 * `value` with each text string replaced by `rewrite` (the same object where nothing changed).
 * `key` is the nearest object key above the value; array items inherit it.
 */
function rewriteIn(value: unknown, key: string | undefined, keys: KeySet, rewrite: (text: string) => string, skipped: ReadonlySet<string> = SKIPPED_KEYS): unknown {
  if (typeof value === "string") return key !== undefined && keys.has(key) && value !== "" ? rewrite(value) : value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const next = rewriteIn(value[index], key, keys, rewrite, skipped);
      if (next !== value[index]) (copy ??= [...value])[index] = next;
    }
    return copy ?? value;
  }
  if (value && typeof value === "object") {
    let copy: Record<string, unknown> | undefined;
    for (const [name, item] of Object.entries(value)) {
      if (skipped.has(name)) continue;
      const next = rewriteIn(item, name, keys, rewrite, skipped);
      if (next !== item) (copy ??= { ...(value as Record<string, unknown>) })[name] = next;
    }
    return copy ?? value;
  }
  return value;
}

/** The body with every text string of `stage`'s keys rewritten. */
export const rewriteText = <T>(body: T, stage: Stage, rewrite: (text: string) => string): T => rewriteIn(body, undefined, keysOf(stage), rewrite) as T;

/** The texts of a body, in order. */
export function textsOf(body: unknown, stage: Stage): string[] {
  const texts: string[] = [];
  rewriteIn(body, undefined, keysOf(stage), (text) => {
    texts.push(text);
    return text;
  });
  return texts;
}

/** The body with every string a provider receives (but the model's name and inline media) rewritten, in order: what the input's pattern checks scan. */
export const rewriteEveryString = <T>(body: T, rewrite: (text: string) => string): T =>
  rewriteIn(body, undefined, EVERY_KEY, (text) => (isInlineMedia(text) ? text : rewrite(text)), MODEL_ONLY) as T;
