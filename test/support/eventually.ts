/**
 * Polls until `check` passes, or the time is up, and answers the last value read: for effects the
 * gateway applies after it answers (charges at settle, log writes, another node's change check).
 */
export async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 3_000): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (check(value) || performance.now() > deadline) return value;
    await Bun.sleep(10);
  }
}
