/** A batch ready to leave: its rows as JSON lines, and an id a receiver may deduplicate on. */
export interface Batch {
  id: string;
  lines: string;
  rows: number;
}

/** Where a sink's batches go. `send` resolves once the target accepted the batch, and throws otherwise. */
export interface SinkTarget {
  send(batch: Batch, signal: AbortSignal): Promise<void>;
}

/** An error's text without any of `secrets` (a URL's credentials, header values, the signing secret). */
export function scrubbed(error: unknown, secrets: readonly string[]): string {
  const text = error instanceof Error ? error.message : String(error);
  return secrets.filter((secret) => secret.length >= 4).reduce((message, secret) => message.replaceAll(secret, "[redacted]"), text);
}
