import { workerChannel } from "./worker-channel";
import type { SyncOpen, SyncReply } from "./replica-sync-worker";

const PRIMARY_PROBE_TIMEOUT_MS = 1_000;

/** Whether the libSQL server at `syncUrl` answers HTTP at all (any status: its auth is not the question). */
async function primaryAnswers(syncUrl: string): Promise<boolean> {
  const base = syncUrl.replace(/^libsql:\/\//, "https://").replace(/\?.*$/, "");
  try {
    const response = await fetch(new URL("/health", base), { signal: AbortSignal.timeout(PRIMARY_PROBE_TIMEOUT_MS) });
    await response.body?.cancel();
    return true;
  } catch {
    return false;
  }
}

/**
 * An embedded replica's syncs from its primary, on the sync thread (replica-sync-worker.ts), and
 * what the last one found. Syncs asked for while one runs share the next one, which starts after
 * it: a caller's sync always begins after its call, so it brings in a write made before.
 */
export class ReplicaSync {
  lastSyncAt: number | undefined;
  frameNo: number | undefined;
  reachable = true;
  private readonly channel;
  private running: Promise<void> | undefined;
  private next: Promise<void> | undefined;

  constructor(private readonly open: SyncOpen) {
    this.channel = workerChannel<object>(new URL("./replica-sync-worker.ts", import.meta.url), "replica sync", () => open);
  }

  sync(): Promise<void> {
    if (!this.running) return this.start();
    this.next ??= this.running.catch(() => undefined).then(() => {
      this.next = undefined;
      return this.start();
    });
    return this.next;
  }

  close(): void {
    this.channel.close();
  }

  private start(): Promise<void> {
    const run = this.once().finally(() => {
      if (this.running === run) this.running = undefined;
    });
    this.running = run;
    return run;
  }

  private async once(): Promise<void> {
    // A sync with the primary away holds the sync thread until its handshake times out: a plain HTTP request tells first.
    if (!(await primaryAnswers(this.open.syncUrl))) {
      this.reachable = false;
      throw new Error(`the primary ${this.open.syncUrl} does not answer`);
    }
    try {
      const { frameNo } = (await this.channel.request({})) as SyncReply;
      this.lastSyncAt = Date.now();
      this.frameNo = frameNo ?? this.frameNo;
      this.reachable = true;
    } catch (error) {
      this.reachable = false;
      throw error;
    }
  }
}
