import { badRequest } from "../http/errors";

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

/** The provider's id of a file the gateway handed out an id for; any other id as it is. */
export const upstreamFileId = (raw: string): string => (raw.startsWith(PREFIX.file) ? (unwrapId(raw)?.id ?? raw) : raw);

const FILE_ID_IN_JSON = new RegExp(`"(${PREFIX.file}[A-Za-z0-9_-]+)"`, "g");

/**
 * A JSON body with each gateway file id among its string values (an `input_file`'s `file_id`, a
 * container's `file_ids`) replaced by the provider's own, so a file uploaded through the gateway
 * is used as the provider knows it. A file kept by another provider is a 400.
 */
export function withUpstreamFileIds(body: string, provider: string): string {
  if (!body.includes(PREFIX.file)) return body;
  return body.replace(FILE_ID_IN_JSON, (quoted, raw: string) => {
    const ref = unwrapId(raw);
    if (!ref) return quoted;
    if (ref.provider !== provider) throw badRequest(`file '${raw}' is kept by provider '${ref.provider}', not '${provider}'`, "file_id");
    return JSON.stringify(ref.id);
  });
}
