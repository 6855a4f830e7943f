import { eq } from "drizzle-orm";
import { fromPromise } from "xstate";
import type { Clock } from "../../actors/runtime/clock";
import { DurableActors } from "../../actors/runtime/durable-actors";
import type { ActorSnapshotStore } from "../../actors/runtime/snapshot-store";
import type { Database } from "../db/client";
import { actorSnapshots } from "../db/schema";
import type { ReadDatabase } from "../logs/worker-reader";
import type { MetricsRegistry } from "../telemetry";
import type { ConfiguredSink } from "./configured-sinks";
import { CursorStore, SINK_ACTOR_KIND } from "./cursor-store";
import { deliverUntilStopped } from "./delivery";
import { registerSinkMetrics } from "./metrics";
import { logSinkRoutes } from "./routes";
import { Wakeup } from "./wakeup";

export { configureSinks } from "./configured-sinks";

export interface LogSinksOptions {
  db: Database;
  /** Where the log rows are read (the reader thread on an embedded file). */
  read: ReadDatabase;
  snapshots: ActorSnapshotStore;
  clock: Clock;
  /** The sinks of `log_sinks`, checked by `configureSinks` before anything started. */
  sinks: readonly ConfiguredSink[];
  metrics: MetricsRegistry;
  /** Registers a listener told of every batch of rows this node stores. */
  onRowsWritten: (listener: () => void) => void;
}

/** The actors of the configured sinks: one `log-sink` actor each, run by the node holding its lease. */
function sinkActors(options: LogSinksOptions, sinks: readonly ConfiguredSink[], wakeup: Wakeup) {
  const { snapshots, clock, db, read } = options;
  const cursors = new CursorStore(db);
  const byName = new Map(sinks.map((sink) => [sink.name, sink]));
  const deps = { cursors, read, clock, wakeup, holder: () => ({ owner: snapshots.lease.owner, now: snapshots.lease.now() }) };
  const machine = snapshots.machines[SINK_ACTOR_KIND].provide({
    actors: {
      deliver: fromPromise(({ input, signal }) => {
        const sink = byName.get(input.sink);
        if (!sink) return new Promise<void>(() => undefined);
        return deliverUntilStopped(sink, deps, input, signal);
      }),
    },
  });
  return { actors: new DurableActors({ kind: SINK_ACTOR_KIND, machine, store: snapshots, clock }), cursors };
}

/**
 * Log sinks (config `log_sinks`): every stored request log row delivered in batches to each
 * sink, at least once, from a cursor per sink in the database, by the one node holding the
 * sink's lease. Without sinks nothing runs and nothing listens to the log writer (a start only
 * drops the actors of sinks removed since); GET /api/log-sinks answers an empty list.
 */
export function createLogSinks(options: LogSinksOptions) {
  const { sinks } = options;
  const routes = logSinkRoutes(options.db, options.read, sinks, options.clock.now.bind(options.clock));
  const wakeup = new Wakeup();
  const { actors, cursors } = sinkActors(options, sinks, wakeup);
  /** The sinks that have an actor in the database; those no longer configured lose it (their cursor stays, for the same name configured again). */
  const existingAfterForgetting = async () => {
    const known = await options.db.select({ id: actorSnapshots.id }).from(actorSnapshots).where(eq(actorSnapshots.kind, SINK_ACTOR_KIND));
    const existing = new Set(known.map(({ id }) => id));
    for (const id of existing) if (!sinks.some((sink) => sink.name === id)) await actors.discard(id);
    return existing;
  };
  if (sinks.length === 0) return { routes, resume: async () => void (await existingAfterForgetting()), stop: async () => undefined };
  options.onRowsWritten(() => wakeup.ring());
  registerSinkMetrics(options.metrics, options.db, options.read, sinks, options.clock.now.bind(options.clock));
  return {
    routes,
    /** Takes up the sinks this node may run, starts those seen for the first time, and drops the actors of sinks no longer configured. */
    async resume(): Promise<void> {
      await actors.resume();
      const existing = await existingAfterForgetting();
      const now = new Date(options.clock.now());
      for (const sink of sinks) {
        if (existing.has(sink.name) || actors.get(sink.name)) continue;
        await actors.spawn(sink.name, { sink: sink.name, createdAt: now.getTime() }, [cursors.create(sink.name, sink.config.start_from ?? "new_rows", now)]);
      }
    },
    stop: () => actors.stop(),
  };
}
