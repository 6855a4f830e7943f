/**
 * Ids the gateway hands out for files and batches. A file or batch lives in one provider account,
 * so its id records the provider and the key that created it (and, for files meant for a batch,
 * the model the batch will run); later calls on it go back to the same account without the client
 * naming either. The upstream's own id is kept inside, unchanged.
 */
export type BatchObjectKind = "file" | "batch";

export interface BatchObjectRef {
  provider: string;
  keyId?: string;
  /** The upstream's id. */
  id: string;
  model?: string;
}

const PREFIX: Record<BatchObjectKind, string> = { file: "file-gw", batch: "batch_gw" };

export function wrapId(kind: BatchObjectKind, ref: BatchObjectRef): string {
  const packed = [ref.provider, ref.keyId ?? "", ref.id, ...(ref.model ? [ref.model] : [])];
  return `${PREFIX[kind]}${Buffer.from(JSON.stringify(packed)).toString("base64url")}`;
}

const isPacked = (value: unknown): value is string[] => Array.isArray(value) && value.length >= 3 && value.every((item) => typeof item === "string");

/** The reference inside a gateway id of either kind; undefined for any other id (an upstream's own). */
export function unwrapId(raw: string): BatchObjectRef | undefined {
  const prefix = Object.values(PREFIX).find((candidate) => raw.startsWith(candidate));
  if (!prefix) return undefined;
  try {
    const packed: unknown = JSON.parse(Buffer.from(raw.slice(prefix.length), "base64url").toString("utf8"));
    if (!isPacked(packed) || !packed[0] || !packed[2]) return undefined;
    const [provider, keyId, id, model] = packed;
    return { provider: provider!, keyId: keyId || undefined, id: id!, model };
  } catch {
    return undefined;
  }
}
