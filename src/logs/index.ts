import { Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { inArray } from "drizzle-orm";
import type { Database } from "../db/client";
import { embeddedFilePath } from "../db/embedded-file";
import { type NewRequestLogRow, requestLogs } from "../db/schema/logs";
import { refusedForItsValues } from "../db/unavailable";
import { STOP_GRACE_MS, WRITE_RETRY_DELAYS_MS } from "../db/write-retries";
import { BatchWriter, rowsWithin } from "./batch-writer";
import { clientReader } from "./client-reader";
import { clientWriter } from "./client-writer";
import { CrashJournal, type RecoveredSegment } from "./crash-journal";
import { type EncodedRow, rowsOfEncoded } from "./encoded-rows";
import { driverRowLayout, encodedRowOf, LOG_COLUMN_NAMES, rowFromDriver } from "./log-columns";
import { requestLogRecorder } from "./recorder";
import { refusalLog } from "./refusal-log";
import { DEFAULT_REFUSED_REQUEST_LOGGING, type RefusedRequestLogging } from "../config/sections/refused-requests";
import { scheduleRetention } from "./retention";
import { requestLogSource } from "./live-source";
import { logRoutes } from "./routes";
import { logWriterOver } from "./table-writes";
import { type WriterDatabase, workerWriter } from "./worker-writer";
import { workerReader } from "./worker-reader";

/** Journal rows checked against the table and queued at a time when a start recovers them. */
const RECOVERY_CHUNK = 500;
const DEFAULT_QUEUE_CAPACITY_BYTES = 256 * 1024 * 1024;
/** What a queued row holds besides its content (ids, names, numbers, JSON columns), roughly. */
const ROW_OVERHEAD_BYTES = 1_024;

export interface RequestLogsOptions {
  /** Whether request and response content is logged (config `logs_store.content_logging`, default true). */
  contentLogging?: () => boolean;
  /** Config `logs_store.refused_requests`: how a request refused for want of a valid virtual key is logged. */
  refusedRequests?: () => RefusedRequestLogging;
  /** Config `logs_store.retention_days`; unset or 0 keeps logs forever. */
  retentionDays?: () => number | undefined;
  queueCapacity?: number;
  /** Bytes of queued rows at most (default 256 MiB): rows with long content would otherwise fill memory before the row capacity. */
  queueCapacityBytes?: number;
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
  /**
   * The folder of the crash journal (env GATEWAY_LOG_JOURNAL_DIR). By default it is
   * `<file>-log-journal` beside an embedded file, and there is none for a libSQL server: a
   * node there may have no disk of its own that outlives it.
   */
  journalDir?: string;
  /** GATEWAY_REGION of this node, stored on every row. */
  region?: string;
}

/**
 * A row on its way to the table, as its encoding alone: the row the recorder built dies young
 * instead of waiting in the queue (and surviving collections) until its batch is written.
 */
interface QueuedRow {
  id: string;
  encoded: EncodedRow;
}

const sizeOfQueued = ({ encoded }: QueuedRow) => ROW_OVERHEAD_BYTES + encoded.length;

/** Recovered rows in chunks an empty queue takes whole: at most RECOVERY_CHUNK rows, and the queue's bytes (or one larger row). */
function* recoveryChunks(rows: QueuedRow[], capacityBytes: number): Generator<QueuedRow[]> {
  for (let start = 0; start < rows.length; ) {
    const { count } = rowsWithin(rows, start, RECOVERY_CHUNK, capacityBytes, sizeOfQueued);
    yield rows.slice(start, start + count);
    start += count;
  }
}

/** A batch just stored: how many rows, and the rows, decoded from their encoding only when asked for. */
export interface WrittenBatch {
  count: number;
  rows(): readonly NewRequestLogRow[];
}

/** Told of every batch once it is stored. */
export type WrittenRowsListener = (batch: WrittenBatch) => void;

/** What opens each journal segment: the columns of its rows, in order. */
const JournalHeader = Type.Object({ columns: Type.Array(Type.String()) });

/**
 * The rows of journal segments, read by the columns each segment names (a gateway of another
 * version may have written them), each id once (a start cut short left its rows both in the
 * segments it claimed and in its own). A segment or row that does not read as one is skipped.
 */
function journaledRows(segments: RecoveredSegment[]): QueuedRow[] {
  const seen = new Set<string>();
  return segments.flatMap(({ header, rows }) => {
    if (!Value.Check(JournalHeader, header)) {
      console.error(`request log: skipped a journal segment of ${rows.length} rows without the columns of its rows`);
      return [];
    }
    const laidOut = driverRowLayout(header.columns);
    return rows.flatMap((line) => {
      try {
        if (!Array.isArray(line)) throw new Error("not a row");
        const values = laidOut(line);
        const { id } = rowFromDriver(values);
        if (seen.has(id)) return [];
        seen.add(id);
        return [{ id, encoded: JSON.stringify(values) }];
      } catch (error) {
        console.error("request log: skipped a journal row that does not read", error);
        return [];
      }
    });
  });
}

/**
 * Request logs: the inference hook that records every request through a batched writer (and,
 * on an embedded file, a crash journal), the /api/logs routes, and the retention schedule.
 * `close()` stops the schedule and writes what is still queued.
 */
export function createRequestLogs(db: Database, options: RequestLogsOptions = {}) {
  const clock = options.clock ?? (() => new Date());
  // Told about every batch once it is stored (the agent indexes logs as they arrive); a listener must not block.
  const writtenListeners = new Set<WrittenRowsListener>();
  const embeddedFile = options.threads && embeddedFilePath(options.threads.url);
  const journalDir = options.journalDir ?? (embeddedFile ? `${embeddedFile}-log-journal` : undefined);
  const journal = journalDir ? new CrashJournal(journalDir, { columns: LOG_COLUMN_NAMES }) : undefined;
  const tableWriter = options.threads ? workerWriter(options.threads) : logWriterOver(clientWriter(db.$client));
  const reader = embeddedFile ? workerReader(embeddedFile) : undefined;
  const insertAndTell = async (batch: QueuedRow[], indexContent = true) => {
    const encoded = batch.map((queued) => queued.encoded);
    await tableWriter.insert(encoded, indexContent);
    let rows: NewRequestLogRow[] | undefined;
    const written: WrittenBatch = { count: encoded.length, rows: () => (rows ??= rowsOfEncoded(encoded).map(rowFromDriver)) };
    for (const listener of writtenListeners) {
      try {
        listener(written);
      } catch (error) {
        console.error("request log: a written-rows listener failed", error);
      }
    }
  };
  const capacityBytes = options.queueCapacityBytes ?? DEFAULT_QUEUE_CAPACITY_BYTES;
  const writer = new BatchWriter<QueuedRow>((batch) => insertAndTell(batch), {
    capacity: options.queueCapacity ?? 10_000,
    capacityBytes,
    sizeOf: sizeOfQueued,
    // One hand-off to the writer thread copies its batch: 3,200 rows of long conversations
    // would be gigabytes at once.
    maxBatchBytes: 16 * 1024 * 1024,
    batchSize: options.batchSize ?? 800,
    // Measured at 1M rows: 3,200-row batches ingest ~20 % more rows per second than 800-row
    // ones; larger ones gain little and hold the write lock longer (~120 ms at this size).
    maxBatchSize: options.maxBatchSize ?? 3_200,
    flushIntervalMs: options.flushIntervalMs ?? 200,
    retryDelaysMs: options.retryDelaysMs ?? WRITE_RETRY_DELAYS_MS,
    refusesRows: refusedForItsValues,
    // Content SQLite's JSON functions cannot read (nested past their 1,000 levels) costs the row its full-text entry, not the row.
    storeRefusedRow: (row) => insertAndTell([row], false),
    onRefused: journal && ((row, error) => journal.quarantine(row.encoded, error)),
    onSettled: journal && ((rows) => journal.settled(rows.length)),
    onGivenUp: journal && (() => journal.givenUp()),
  });
  // A request's row is in the journal before its reply's last byte leaves; rows queued in bulk (`later`) are written together.
  const enqueueEncoded = (id: string, encoded: EncodedRow, later = false): boolean => {
    const accepted = writer.enqueue({ id, encoded });
    if (accepted) journal?.append(encoded, later);
    return accepted;
  };
  // Encoded once, as each request ends: the journal and the writer thread take the same text.
  const enqueue = (row: NewRequestLogRow) => enqueueEncoded(row.id, encodedRowOf(row));
  const retention = scheduleRetention(tableWriter, {
    retentionDays: options.retentionDays ?? (() => undefined),
    intervalMs: options.retentionIntervalMs ?? 3_600_000,
    clock,
    onSweep: options.onRetentionSweep,
  });
  const queueStatus = () => ({ ...writer.status(), quarantined: journal?.quarantined ?? 0 });
  let closing = false;
  let recovering: Promise<unknown> | undefined;
  const read = reader?.db ?? clientReader(db);
  const refusals = refusalLog(enqueue, {
    contentLogging: options.contentLogging ?? (() => true),
    refusedRequests: options.refusedRequests ?? (() => DEFAULT_REFUSED_REQUEST_LOGGING),
    region: options.region ?? null,
  });
  return {
    /** Where queries over the logs run without stalling the main thread (the reader thread on a file). */
    read,
    recorder: requestLogRecorder({ enqueue }, options.contentLogging ?? (() => true), options.refusedRequests, options.region ?? null),
    /** A request the gateway refused before its pipeline took it, with its body if it was read (see refusal-log.ts). */
    recordRefusal: refusals.record,
    /** Refused requests the rate bound kept out of the log. */
    refusalsDropped: refusals.dropped,
    routes: logRoutes({ writer: tableWriter, read, queueStatus, clock, contentLogging: options.contentLogging ?? (() => true), exactPercentilesUpTo: options.exactPercentilesUpTo }),
    /** The rows as they are stored, for the live feed (GET /api/ws). */
    liveSource: requestLogSource(read),
    queueStatus,
    flush: () => writer.flush(),
    /** Calls `listener` with every batch of rows after it is stored. */
    onRowsWritten(listener: WrittenRowsListener): void {
      writtenListeners.add(listener);
    },
    /**
     * Queues again the rows a process killed on this file left in the journal, but those the table
     * already has; answers how many. Requests may be served meanwhile: a row the table refuses is
     * quarantined like any other, and a close stops the recovery (the rows not yet queued wait in
     * their claimed segments for the next start).
     */
    recoverJournal(): Promise<number> {
      const recovery = recover();
      recovering = recovery.catch(() => undefined);
      return recovery;
    },
    async close() {
      closing = true;
      await retention.stop();
      // Also ends a recovery waiting for the queue to drain.
      await writer.stop(options.stopGraceMs ?? STOP_GRACE_MS);
      await recovering;
      journal?.close();
      tableWriter.close();
      reader?.close();
    },
  };

  async function recover(): Promise<number> {
    if (!journal) return 0;
    const left = journal.recover();
    const rows = journaledRows(left.segments);
    let queued = 0;
    for (const chunk of recoveryChunks(rows, capacityBytes)) {
      const stored = await db.select({ id: requestLogs.id }).from(requestLogs).where(inArray(requestLogs.id, chunk.map(({ id }) => id)));
      if (closing) return queued;
      const known = new Set(stored.map(({ id }) => id));
      for (const { id, encoded } of chunk) if (!known.has(id) && enqueueEncoded(id, encoded, true)) queued++;
      journal.writePending();
      // Never more than the queue holds: the rows wait in the journal until they fit.
      await writer.flush();
    }
    left.release();
    return queued;
  }
}

export type RequestLogs = ReturnType<typeof createRequestLogs>;
