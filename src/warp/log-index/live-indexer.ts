import type { WrittenBatch } from "../../logs";
import { isConfigured } from "../config/resolve";
import type { StoredWarpConfig } from "../config/schema";
import type { Embedder } from "./embedder";
import { embeddingSpaceOf } from "./embedding-space";
import { embeddableText } from "./log-text";
import { isIndexable, type LogVectorStore } from "./vector-store";

/** Logs waiting to be embedded at most; beyond, new logs are left to a backfill. */
const QUEUE_CAPACITY = 2_000;
/** Logs embedded per upstream call. */
const BATCH_SIZE = 32;

export interface LiveIndexerDeps {
  vectors: LogVectorStore;
  embed: Embedder;
  readConfig(): Promise<StoredWarpConfig>;
  now(): Date;
}

export interface LiveIndexStatus {
  queued: number;
  indexed: number;
  failed: number;
  dropped: number;
}

interface PendingLog {
  id: string;
  text: string;
}

/**
 * Indexes logs as the log writer stores them. `accept` never waits: it only queues; one drain
 * at a time embeds the queue in batches with the configuration of the moment (nothing is
 * indexed while the agent is not configured). Failures are counted and logged, never raised.
 */
export class LiveLogIndexer {
  private queue: PendingLog[] = [];
  private draining: Promise<void> | undefined;
  private readonly stopping = new AbortController();
  private readonly counts = { indexed: 0, failed: 0, dropped: 0 };
  /** What the last configuration read said, until a write (here or on another node) makes it stale. */
  private lastReadConfigured: boolean | undefined;
  /** Counts configChanged() calls: a read that was under way during one is not trusted. */
  private configWrites = 0;

  constructor(private readonly deps: LiveIndexerDeps) {}

  readonly accept = (written: WrittenBatch): void => {
    if (this.stopping.signal.aborted || this.knownUnconfigured()) return;
    for (const row of written.rows()) {
      if (!isIndexable(row)) continue;
      const text = embeddableText(row.requestContent, row.responseContent);
      if (!text) continue;
      if (this.queue.length >= QUEUE_CAPACITY) this.counts.dropped++;
      else this.queue.push({ id: row.id, text });
    }
    if (this.queue.length > 0) this.draining ??= this.drain().finally(() => (this.draining = undefined));
  };

  /** The configuration was written, on this node or another: the next rows are queued whatever the last read said. */
  configChanged(): void {
    this.configWrites++;
    this.lastReadConfigured = undefined;
  }

  status(): LiveIndexStatus {
    return { queued: this.queue.length, ...this.counts };
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    this.queue = [];
    await this.draining;
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0 && !this.stopping.signal.aborted) {
      const batch = this.queue.splice(0, BATCH_SIZE);
      try {
        await this.index(batch);
      } catch (error) {
        this.counts.failed += batch.length;
        if (!this.stopping.signal.aborted) console.error(`warp: ${batch.length} new logs could not be indexed`, error);
      }
    }
  }

  /**
   * Whether the last configuration read said the agent is off and nothing was written since: then
   * rows are not even queued, so an unconfigured agent costs the log writer nothing.
   */
  private knownUnconfigured(): boolean {
    return this.lastReadConfigured === false;
  }

  private async index(batch: PendingLog[]): Promise<void> {
    const writesBefore = this.configWrites;
    const config = await this.deps.readConfig();
    if (writesBefore === this.configWrites) this.lastReadConfigured = isConfigured(config);
    if (!isConfigured(config)) return;
    const space = embeddingSpaceOf(config);
    const vectors = await this.deps.embed(
      batch.map((log) => log.text),
      space,
      { timeoutSeconds: config.request_timeout_seconds, signal: this.stopping.signal },
    );
    await this.deps.vectors.upsert(space, batch.map((log, index) => ({ logId: log.id, vector: vectors[index]! })), this.deps.now());
    this.counts.indexed += batch.length;
  }
}
