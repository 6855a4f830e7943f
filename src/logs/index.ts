import type { Database } from "../db/client";
import { embeddedFilePath } from "../db/embedded-file";
import { refusedByTable, STOP_GRACE_MS, WRITE_RETRY_DELAYS_MS } from "../db/write-retries";
import type { NewRequestLogRow } from "../db/schema/logs";
import { BatchWriter } from "./batch-writer";
import { clientReader } from "./client-reader";
import { clientWriter } from "./client-writer";
import { requestLogRecorder } from "./recorder";
import { scheduleRetention } from "./retention";
import { logRoutes } from "./routes";
import { logWriterOver } from "./table-writes";
import { type WriterDatabase, workerWriter } from "./worker-writer";
import { workerReader } from "./worker-reader";

export interface RequestLogsOptions {
  /** Whether request and response content is logged (config `logs_store.content_logging`, default true). */
  contentLogging?: () => boolean;
  /** Config `logs_store.retention_days`; unset or 0 keeps logs forever. */
  retentionDays?: () => number | undefined;
  queueCapacity?: number;
  batchSize?: number;
  maxBatchSize?: number;
  flushIntervalMs?: number;
  /** Waits before each new attempt at a batch the database did not take (default: WRITE_RETRY_DELAYS_MS, then every 12 s until close). */
  retryDelaysMs?: readonly number[];
  /** How long `close()` waits for a database that does not take the queued rows before counting them failed (default STOP_GRACE_MS). */
  stopGraceMs?: number;
  retentionIntervalMs?: number;
  clock?: () => Date;
  onRetentionSweep?: (deleted: number) => void;
  /** Stats over a window with more requests take latency percentiles from the hourly histogram, within 1 % (default 100,000). */
  exactPercentilesUpTo?: number;
  /**
   * The database (a file or server URL; not `:memory:`, which a thread cannot share) that
   * threads with their own connections write batches to and, for an embedded file, run the
   * dashboard's queries on. The embedded libSQL driver is synchronous: on the main thread every
   * batch and every query over a large table would pause the requests being served (a libSQL
   * server's client does not block, so its queries run on `db`). Without it all goes to `db`.
   */
  threads?: WriterDatabase;
}

/**
 * Request logs: the inference hook that records every request through a batched writer, the
 * /api/logs routes, and the retention schedule. `close()` stops the schedule and writes what
 * is still queued.
 */
export function createRequestLogs(db: Database, options: RequestLogsOptions = {}) {
  const clock = options.clock ?? (() => new Date());
  // Told about every batch once it is stored (the agent indexes logs as they arrive); a listener must not block.
  const writtenListeners = new Set<(rows: readonly NewRequestLogRow[]) => void>();
  const tableWriter = options.threads ? workerWriter(options.threads) : logWriterOver(clientWriter(db.$client));
  const embeddedFile = options.threads && embeddedFilePath(options.threads.url);
  const reader = embeddedFile ? workerReader(embeddedFile) : undefined;
  const insertAndTell = async (rows: NewRequestLogRow[]) => {
    await tableWriter.insert(rows);
    for (const listener of writtenListeners) {
      try {
        listener(rows);
      } catch (error) {
        console.error("request log: a written-rows listener failed", error);
      }
    }
  };
  const writer = new BatchWriter<NewRequestLogRow>(insertAndTell, {
    capacity: options.queueCapacity ?? 10_000,
    batchSize: options.batchSize ?? 800,
    // Measured at 1M rows: 3,200-row batches ingest ~20 % more rows per second than 800-row
    // ones; larger ones gain little and hold the write lock longer (~120 ms at this size).
    maxBatchSize: options.maxBatchSize ?? 3_200,
    flushIntervalMs: options.flushIntervalMs ?? 200,
    retryDelaysMs: options.retryDelaysMs ?? WRITE_RETRY_DELAYS_MS,
    refusesRows: refusedByTable,
  });
  const retention = scheduleRetention(tableWriter, {
    retentionDays: options.retentionDays ?? (() => undefined),
    intervalMs: options.retentionIntervalMs ?? 3_600_000,
    clock,
    onSweep: options.onRetentionSweep,
  });
  const queueStatus = () => writer.status();
  const read = reader?.db ?? clientReader(db);
  return {
    /** Where queries over the logs run without stalling the main thread (the reader thread on a file). */
    read,
    recorder: requestLogRecorder(writer, options.contentLogging ?? (() => true)),
    routes: logRoutes({ writer: tableWriter, read, queueStatus, clock, exactPercentilesUpTo: options.exactPercentilesUpTo }),
    queueStatus,
    flush: () => writer.flush(),
    /** Calls `listener` with every batch of rows after it is stored. */
    onRowsWritten(listener: (rows: readonly NewRequestLogRow[]) => void): void {
      writtenListeners.add(listener);
    },
    async close() {
      await retention.stop();
      await writer.stop(options.stopGraceMs ?? STOP_GRACE_MS);
      tableWriter.close();
      reader?.close();
    },
  };
}

export type RequestLogs = ReturnType<typeof createRequestLogs>;
