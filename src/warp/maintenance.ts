import type { ConversationStore } from "./conversations/store";
import { keptSince } from "./conversations/ownership";
import type { WarpConfigStore } from "./config/store";
import type { LogVectorStore } from "./log-index/vector-store";

export interface MaintenanceDeps {
  config: WarpConfigStore;
  conversations: ConversationStore;
  vectors: LogVectorStore;
  clock: () => Date;
  intervalMs: number;
}

/**
 * Now and then (first right after start): removes chats past history_retention_days and the
 * vectors of logs that were deleted. Reads already hide expired chats, so timing is not exact.
 */
export function scheduleMaintenance({ config, conversations, vectors, clock, intervalMs }: MaintenanceDeps) {
  let running: Promise<void> | undefined;
  async function clean() {
    try {
      await conversations.removeOlderThan(keptSince(await config.read(), clock()));
      await vectors.dropOrphans();
    } catch (error) {
      console.error("warp: maintenance sweep failed", error);
    }
  }
  const sweep = () => (running ??= clean().finally(() => (running = undefined)));
  const first = setTimeout(sweep, 0);
  const timer = setInterval(sweep, intervalMs);
  // Timers that do not keep a stopping process alive; stop() clears them.
  first.unref?.();
  timer.unref?.();
  return {
    sweep,
    async stop() {
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
