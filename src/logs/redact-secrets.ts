/** Field names whose values are credentials wherever they appear in a logged body. */
const SECRET_FIELD = /^(api[-_]?key|authorization|password|secret|client[-_]?secret|access[-_]?token|refresh[-_]?token|id[-_]?token|private[-_]?key|x-api-key|x-gw-vk)$/i;

export const REDACTED = "[REDACTED]";

/** The same names as JSON object keys, to tell from the plain serialization whether any is present. */
const SECRET_KEY_IN_JSON = new RegExp(`"(${SECRET_FIELD.source.slice(2, -2)})":`, "i");

/**
 * `body` as JSON with every credential-named field, at any depth, replaced by a marker. Most
 * bodies hold none: the native serialization is scanned first, and only a body that names one
 * pays for the slower serialization with a replacer.
 */
export function redactedJson(body: unknown): string {
  const plain = JSON.stringify(body);
  if (plain === undefined || !SECRET_KEY_IN_JSON.test(plain)) return plain;
  return JSON.stringify(body, (field, value) => (field !== "" && SECRET_FIELD.test(field) ? REDACTED : value));
}
