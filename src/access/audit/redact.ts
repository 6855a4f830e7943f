export const REDACTED = "[redacted]";

/** Field names whose values are credentials: passwords, key values, tokens, client secrets... */
const SECRET_FIELD = /^(value|key|password|.*[-_]password|secret|.*[-_]secret|token|.*[-_]token|.*[-_]key|auth_credentials|authorization|cookie)$/i;
/** Header maps (webhook headers, provider extra headers) often carry credentials in any header. */
const HEADER_MAP = /^(headers|extra_headers)$/i;

/** A copy of `value` fit for the audit log: every secret replaced, the shape kept so a change stays visible. */
export function redactSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (value === null || typeof value !== "object") return value;
  const copy: Record<string, unknown> = {};
  for (const [field, inner] of Object.entries(value)) {
    if (SECRET_FIELD.test(field) && typeof inner === "string" && inner !== "") copy[field] = REDACTED;
    else if (HEADER_MAP.test(field) && inner && typeof inner === "object") copy[field] = Object.fromEntries(Object.keys(inner).map((name) => [name, REDACTED]));
    else copy[field] = redactSecrets(inner);
  }
  return copy;
}
