import { eq } from "drizzle-orm";
import { fromPromise } from "xstate";
import type { Clock } from "../../actors/runtime/clock";
import { DurableActors } from "../../actors/runtime/durable-actors";
import type { ActorSnapshotStore } from "../../actors/runtime/snapshot-store";
import type { SecretBox } from "../crypto/secret-box";
import type { Database } from "../db/client";
import { actorSnapshots, logSinks } from "../db/schema";
import { reloadOnChange } from "../db/table-changes";
import type { ReadDatabase } from "../logs/worker-reader";
import type { OutboundReach } from "../outbound/reach";
import type { MetricsRegistry } from "../telemetry";
import type { ConfiguredSink } from "./configured-sinks";
import { CursorStore, SINK_ACTOR_KIND } from "./cursor-store";
import { deliverUntilStopped } from "./delivery";
import { configureStored, LiveSinks } from "./live-sinks";
import { registerSinkMetrics } from "./metrics";
import { logSinkRoutes } from "./routes";
import { LogSinkStore } from "./sink-store";
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
  /** Seals the secrets of sinks added through the API. */
  secrets: SecretBox;
  /** The outbound address policy of the API's HTTP sinks. */
  reach: OutboundReach;
  metrics: MetricsRegistry;
  /** Registers a listener told of every batch of rows this node stores. */
  onRowsWritten: (listener: () => void) => void;
}

/** The actors of the sinks: one `log-sink` actor each, run by the node holding its lease, with the sink's settings as they are at each batch. */
function sinkActors(options: LogSinksOptions, live: LiveSinks, wakeup: Wakeup) {
  const { snapshots, clock, db, read } = options;
  const cursors = new CursorStore(db);
  const deps = { cursors, read, clock, wakeup, holder: () => ({ owner: snapshots.lease.owner, now: snapshots.lease.now() }) };
  const machine = snapshots.machines[SINK_ACTOR_KIND].provide({
    actors: { deliver: fromPromise(({ input, signal }) => deliverUntilStopped(() => live.get(input.sink), deps, input, signal)) },
  });
  return { actors: new DurableActors({ kind: SINK_ACTOR_KIND, machine, store: snapshots, clock }), cursors };
}

/**
 * Log sinks (config `log_sinks` and /api/log-sinks): every stored request log row delivered in
 * batches to each sink, at least once, from a cursor per sink in the database, by the one node
 * holding the sink's lease. Until a sink exists nothing listens to the log writer and /metrics
 * shows none of their figures; GET /api/log-sinks answers an empty list.
 */
export function createLogSinks(options: LogSinksOptions) {
  const { db, clock } = options;
  const live = new LiveSinks(options.sinks);
  const store = new LogSinkStore(db, options.secrets);
  const wakeup = new Wakeup();
  const { actors, cursors } = sinkActors(options, live, wakeup);
  let listening = false;
  /** The first sink known turns on the log writer's bell and the metrics; they stay (a listener and four collectors, nothing per request). */
  const listenOnce = () => {
    if (listening || live.all().length === 0) return;
    listening = true;
    options.onRowsWritten(() => wakeup.ring());
    registerSinkMetrics(options.metrics, db, options.read, () => live.all(), clock.now.bind(clock));
  };
  /** Starts the sinks seen for the first time and drops the actors of sinks gone (their cursor stays, for the same name again). */
  const reconcile = async (existing: ReadonlySet<string>) => {
    for (const id of existing) if (!live.get(id)) await actors.discard(id);
    const now = new Date(clock.now());
    for (const sink of live.all()) {
      if (existing.has(sink.name) || actors.get(sink.name)) continue;
      await actors.spawn(sink.name, { sink: sink.name, createdAt: now.getTime() }, [cursors.create(sink.name, sink.config.start_from ?? "new_rows", now)]);
    }
  };
  /**
   * Reads the API's sinks again (one at a time), then brings the actors in line; a stored sink
   * that no longer configures is left out, said in the log. The actors are listed before the
   * sinks: a sink is stored before its actor, so one found here is never taken for a sink gone.
   */
  let reloading: Promise<void> = Promise.resolve();
  const reload = () =>
    (reloading = reloading.then(async () => {
      const known = await db.select({ id: actorSnapshots.id }).from(actorSnapshots).where(eq(actorSnapshots.kind, SINK_ACTOR_KIND));
      const configured = await Promise.all(
        (await store.list()).map((sink) =>
          configureStored(sink, clock, options.reach).catch((error) => {
            console.error(`log sink ${sink.name} cannot run: ${error instanceof Error ? error.message : error}`);
            return undefined;
          }),
        ),
      );
      live.replaceStored(configured.filter((sink) => sink !== undefined));
      listenOnce();
      await reconcile(new Set(known.map(({ id }) => id)));
      wakeup.ring();
    }));
  const routes = logSinkRoutes({ db, read: options.read, live, store, clock, reach: options.reach, reload });
  let watched: { stop(): Promise<void> } | undefined;
  return {
    routes,
    /** Takes up the sinks this node may run, starts those seen for the first time, and follows the API's sinks written by any node. */
    async resume(): Promise<void> {
      watched = reloadOnChange(db, [logSinks], reload);
      await actors.resume();
      await reload();
    },
    async stop() {
      await watched?.stop();
      await reloading;
      await actors.stop();
    },
  };
}
