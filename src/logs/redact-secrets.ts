/** Field names whose values are credentials wherever they appear in a logged body. */
const SECRET_FIELD = /^(api[-_]?key|authorization|password|secret|client[-_]?secret|access[-_]?token|refresh[-_]?token|id[-_]?token|private[-_]?key|x-api-key|x-gw-vk)$/i;

export const REDACTED = "[REDACTED]";

/** `body` as JSON with every credential-named field, at any depth, replaced by a marker. */
export function redactedJson(body: unknown): string {
  return JSON.stringify(body, (field, value) => (field !== "" && SECRET_FIELD.test(field) ? REDACTED : value));
}
