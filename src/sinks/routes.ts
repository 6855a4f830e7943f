import { Elysia } from "elysia";
import type { Database } from "../db/client";
import { replies } from "../http/replies";
import type { ReadDatabase } from "../logs/worker-reader";
import type { ConfiguredSink } from "./configured-sinks";
import { LogSinkList } from "./replies";
import { sinkStatus } from "./status";

/** GET /api/log-sinks: every configured sink and where it stands. */
export const logSinkRoutes = (db: Database, read: ReadDatabase, sinks: readonly ConfiguredSink[], now: () => number) =>
  new Elysia({ name: "log-sinks", prefix: "/api/log-sinks" }).get(
    "/",
    async () => {
      const at = now();
      const statuses = await Promise.all(sinks.map((sink) => sinkStatus(db, read, sink, at)));
      return { sinks: statuses, count: statuses.length };
    },
    replies({ 200: LogSinkList }, { summary: "List log sinks", description: "Each sink of `log_sinks` in the configuration: its state, the last row delivered, its lag in rows and seconds, its failures and the last error (never a secret)." }),
  );
