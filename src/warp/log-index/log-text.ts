/** Characters of a log that are embedded at most: well inside every embedding model's input limit. */
const MAX_EMBEDDED_CHARS = 8_000;

/** Keys whose string values say nothing about what was asked (enumerations, ids, binary payloads). */
const SKIPPED_KEYS = new Set(["role", "model", "type", "id", "tool_call_id", "url", "data", "signature", "encoding_format", "file_data", "image_url"]);

function collectText(value: unknown, into: string[]): void {
  if (typeof value === "string") {
    if (value.trim()) into.push(value);
  } else if (Array.isArray(value)) {
    for (const item of value) collectText(item, into);
  } else if (value && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) if (!SKIPPED_KEYS.has(key)) collectText(item, into);
  }
}

/**
 * What is embedded for a log: the text of its (already redacted) request body and the response
 * text, as the logs store them. Empty when content logging kept neither.
 */
export function embeddableText(requestContent: string | null | undefined, responseContent: string | null | undefined): string {
  const parts: string[] = [];
  if (requestContent) {
    try {
      collectText(JSON.parse(requestContent), parts);
    } catch {
      parts.push(requestContent);
    }
  }
  if (responseContent?.trim()) parts.push(responseContent);
  return parts.join("\n").slice(0, MAX_EMBEDDED_CHARS);
}
