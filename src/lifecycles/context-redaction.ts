/**
 * What an actor's context may show. Names that carry credentials anywhere in it (a sealed
 * request, header values, secrets, tokens) are replaced wherever they appear; per kind, the
 * fields holding what another route guards (a job's response, an agent's message) too.
 */
const SECRET_NAMES = /secret|token|password|passphrase|authorization|cookie|api[_-]?key|credential|sealed|header|signature/i;

/** Paths (dotted) whose values are replaced, per actor kind. */
const GUARDED_PATHS: Record<string, readonly string[]> = {
  // The result is the job owner's to read (with the virtual key that submitted it); the owner is that key's hash.
  "async-job": ["response.body", "owner"],
  // The upstream agent's message can quote the caller's input.
  "a2a-task": ["status.message"],
  // A hash of the virtual key that may read the stream.
  stream: ["owner"],
};

export const REDACTED = "[redacted]";

function redactValue(value: unknown, path: string, guarded: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) return value.map((item) => redactValue(item, path, guarded));
  if (!value || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => {
      const innerPath = path ? `${path}.${key}` : key;
      if (inner !== undefined && (SECRET_NAMES.test(key) || guarded.has(innerPath))) return [key, REDACTED];
      return [key, redactValue(inner, innerPath, guarded)];
    }),
  );
}

/** The context as the lifecycle views show it; without a kind, every kind's guarded fields are replaced. */
export function redactContext(kind: string | undefined, context: unknown): unknown {
  const guarded = kind === undefined ? Object.values(GUARDED_PATHS).flat() : (GUARDED_PATHS[kind] ?? []);
  return redactValue(context, "", new Set(guarded));
}
