import type { Clock } from "../../actors/runtime/clock";
import type { ActorSnapshotStore } from "../../actors/runtime/snapshot-store";
import type { Database } from "../db/client";
import { FailureStreak } from "../db/failure-streak";
import { ActorRecords } from "./actor-records";
import { lifecycleRoutes } from "./routes";
import { TransitionFeed } from "./transition-feed";

export const DEFAULT_HISTORY_RETENTION_DAYS = 7;
const DAY_MS = 86_400_000;
const SWEEP_EVERY_MS = 3_600_000;

export interface LifecyclesDeps {
  db: Database;
  snapshots: ActorSnapshotStore;
  clock: Clock;
  /** Days an ended actor's history is kept; read on each sweep. */
  retentionDays: () => number | undefined;
}

/**
 * The lifecycles made visible (GET /api/actors...), and the sweep that deletes the histories
 * of actors that ended more than the retention ago: at start, then hourly.
 */
export function createLifecycles({ db, snapshots, clock, retentionDays }: LifecyclesDeps) {
  const records = new ActorRecords(db);
  const feed = new TransitionFeed(records);
  const failures = new FailureStreak("sweeping ended actors' histories");
  let sweeping: Promise<unknown> | undefined;
  const sweep = () => {
    const days = retentionDays() ?? DEFAULT_HISTORY_RETENTION_DAYS;
    sweeping ??= records
      .sweep(new Date(clock.now() - days * DAY_MS))
      .then(() => failures.succeeded(), (error) => failures.failed(error))
      .finally(() => (sweeping = undefined));
    return sweeping;
  };
  void sweep();
  const timer = setInterval(sweep, SWEEP_EVERY_MS);
  timer.unref?.();
  return {
    routes: lifecycleRoutes({ machines: snapshots.machines, records, feed }),
    /** Runs a sweep now (the hourly one does the same). */
    sweep,
    async stop() {
      clearInterval(timer);
      feed.close();
      await sweeping;
    },
  };
}
