/** Bench servers exit when the bench that started them goes away, even if it could not stop them. */
export function exitWhenParentLeaves(): void {
  const reader = Bun.stdin.stream().getReader();
  const drain = (): Promise<void> => reader.read().then(({ done }) => (done ? process.exit(0) : drain()));
  void drain().catch(() => process.exit(0));
}

/** The line every bench server (and the gateway) prints once listening; the bench reads the port from it. */
export const LISTENING_LINE = /listening on http:\/\/[^\s:]+:(\d+)/;
