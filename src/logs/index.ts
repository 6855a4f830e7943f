import type { Database } from "../db/client";
import type { NewRequestLogRow } from "../db/schema/logs";
import { BatchWriter } from "./batch-writer";
import { rowInserter } from "./insert-rows";
import { requestLogRecorder } from "./recorder";
import { scheduleRetention } from "./retention";
import { logRoutes } from "./routes";

export interface RequestLogsOptions {
  /** Whether request and response content is logged (config `logs_store.content_logging`, default true). */
  contentLogging?: () => boolean;
  /** Config `logs_store.retention_days`; unset or 0 keeps logs forever. */
  retentionDays?: () => number | undefined;
  queueCapacity?: number;
  batchSize?: number;
  flushIntervalMs?: number;
  retentionIntervalMs?: number;
  clock?: () => Date;
  onRetentionSweep?: (deleted: number) => void;
}

/**
 * Request logs: the inference hook that records every request through a batched writer, the
 * /api/logs routes, and the retention schedule. `close()` stops the schedule and writes what
 * is still queued.
 */
export function createRequestLogs(db: Database, options: RequestLogsOptions = {}) {
  const clock = options.clock ?? (() => new Date());
  const writer = new BatchWriter<NewRequestLogRow>(rowInserter(db), {
    capacity: options.queueCapacity ?? 10_000,
    batchSize: options.batchSize ?? 500,
    flushIntervalMs: options.flushIntervalMs ?? 200,
  });
  const retention = scheduleRetention(db, {
    retentionDays: options.retentionDays ?? (() => undefined),
    intervalMs: options.retentionIntervalMs ?? 3_600_000,
    clock,
    onSweep: options.onRetentionSweep,
  });
  const queueStatus = () => writer.status();
  return {
    recorder: requestLogRecorder(writer, options.contentLogging ?? (() => true)),
    routes: logRoutes({ db, queueStatus, clock }),
    queueStatus,
    flush: () => writer.flush(),
    async close() {
      retention.stop();
      await writer.flush();
    },
  };
}

export type RequestLogs = ReturnType<typeof createRequestLogs>;
