/** A text's SHA-256 in lowercase hex, from Bun's native hasher: a few hundred ns, a third of node:crypto's createHash chain. */
export const sha256Hex = (text: string): string => Bun.CryptoHasher.hash("sha256", text, "hex");

/**
 * The SHA-256 of `value` as JSON with object keys sorted (localeCompare) at every depth: the
 * same configuration always gives the same hash, whatever order its fields came in. Stored
 * hashes depend on this exact text, so its ordering must not change.
 */
export function sortedJsonSha256Hex(value: unknown): string {
  const canonical = JSON.stringify(value, (_, item) =>
    item && typeof item === "object" && !Array.isArray(item) ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => a.localeCompare(b))) : item,
  );
  return sha256Hex(canonical);
}
