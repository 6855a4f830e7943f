import { createHash } from "node:crypto";
import { asc, getTableColumns, gt } from "drizzle-orm";
import type { Clock } from "../../actors/runtime/clock";
import type { DeliverInput, SinkFailure } from "../../actors/log-sink";
import { requestLogs } from "../db/schema";
import { LOG_SUMMARY_COLUMNS, logView } from "../logs/search";
import type { ReadDatabase } from "../logs/worker-reader";
import type { ConfiguredSink } from "./configured-sinks";
import type { CursorStore, Holder } from "./cursor-store";
import { scrubbed } from "./targets";
import type { Wakeup } from "./wakeup";

export interface DeliveryDeps {
  cursors: CursorStore;
  read: ReadDatabase;
  clock: Clock;
  wakeup: Wakeup;
  holder: () => Holder;
}

/** How one turn went: nothing to do (or not this node's to do), or rows read and the batch accepted. */
type Turn = { kind: "not_held" } | { kind: "read"; rows: number; delivered: number };

/** The same rows after the same cursor get the same id, so a receiver may recognise a batch sent again. */
const batchId = (sink: string, fromSeq: number, toSeq: number) => `msg_${createHash("sha256").update(`${sink}:${fromSeq}:${toSeq}`).digest("base64url").slice(0, 24)}`;

/** Reads the rows after the cursor, sends those the filter passes (cut to the fields), and advances the cursor once the target accepted them. */
export async function deliverBatch(sink: ConfiguredSink, deps: DeliveryDeps, signal: AbortSignal): Promise<Turn> {
  const fromSeq = await deps.cursors.heldCursor(sink.name, deps.holder());
  if (fromSeq === undefined) return { kind: "not_held" };
  const columns = sink.includeContent ? getTableColumns(requestLogs) : LOG_SUMMARY_COLUMNS;
  const rows = await deps.read.select(columns).from(requestLogs).where(gt(requestLogs.seq, fromSeq)).orderBy(asc(requestLogs.seq)).limit(sink.batchSize);
  const last = rows.at(-1);
  if (!last) return { kind: "read", rows: 0, delivered: 0 };
  const chosen = rows.map((row) => logView(row)).filter(sink.matches);
  if (chosen.length > 0) {
    const lines = chosen.map((row) => `${JSON.stringify(sink.select(row))}\n`).join("");
    await sink.target.send({ id: batchId(sink.name, fromSeq, last.seq), lines, rows: chosen.length }, signal);
  }
  if (signal.aborted) throw signal.reason;
  await deps.cursors.advance(sink.name, deps.holder(), { fromSeq, toSeq: last.seq, delivered: chosen.length, lastRowAt: last.timestamp });
  return { kind: "read", rows: rows.length, delivered: chosen.length };
}

/** How long a sink's loop waits for its settings while this node does not know them yet (added on another node, not yet reloaded here). */
const UNKNOWN_SINK_WAIT_MS = 1_000;

/**
 * The `deliver` actor of a log-sink: batch after batch, waiting between them while there is
 * nothing to read (or the lease is another node's), until stopped. Each batch takes the sink's
 * settings as they are now (`current`), so an edit applies from the next batch. A failed attempt
 * is recorded and ends the run as a SinkFailure; with `endAfterFirstBatch` the first accepted
 * batch ends it.
 */
export async function deliverUntilStopped(current: () => ConfiguredSink | undefined, deps: DeliveryDeps, input: DeliverInput, signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    const sink = current();
    if (!sink) {
      await deps.wakeup.wait(deps.clock, UNKNOWN_SINK_WAIT_MS, signal);
      continue;
    }
    let turn: Turn;
    try {
      turn = await deliverBatch(sink, deps, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      const failure: SinkFailure = { error: scrubbed(error, sink.secrets), at: deps.clock.now(), backoff: sink.backoff };
      await deps.cursors.recordFailure(sink.name, failure.error, new Date(failure.at)).catch((recording) => console.error(`log sink ${sink.name}: recording a failure failed`, recording));
      throw failure;
    }
    if (turn.kind === "read" && turn.rows > 0 && input.endAfterFirstBatch) return;
    if (turn.kind === "read" && turn.rows === sink.batchSize) continue;
    await deps.wakeup.wait(deps.clock, sink.pollIntervalMs, signal);
  }
}
