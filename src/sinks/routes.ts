import { Elysia } from "elysia";
import type { Clock } from "../../actors/runtime/clock";
import { principalOf } from "../access";
import type { Database } from "../db/client";
import { conflict, notFound } from "../http/errors";
import { Deleted, replies } from "../http/replies";
import type { ReadDatabase } from "../logs/worker-reader";
import { checkOptedInAddress, checkPrivateOptIn, type OutboundReach } from "../outbound/reach";
import { LogSinkCreate, LogSinkUpdate, SinkNameParams } from "./bodies";
import { checkedStored, type LiveSinks } from "./live-sinks";
import { LogSinkList, LogSinkStatus } from "./replies";
import type { LogSinkStore, StoredSink } from "./sink-store";
import { sinkStatus } from "./status";

export interface LogSinkRouteDeps {
  db: Database;
  read: ReadDatabase;
  live: LiveSinks;
  store: LogSinkStore;
  clock: Clock;
  reach: OutboundReach;
  /** Reads the API's sinks again and brings the actors in line. */
  reload(): Promise<void>;
}

const READ_ONLY = "is defined in the configuration file: change it there";

/** A sink as written checked before it is stored: its filter and fields, and an HTTP address under the outbound policy (a private one only for a caller who may opt in). */
async function checked(request: Request, sink: StoredSink, deps: LogSinkRouteDeps): Promise<StoredSink> {
  if (sink.type === "http") {
    if (sink.allow_private_network === true) checkPrivateOptIn(principalOf(request), deps.reach, "allow_private_network");
    await checkOptedInAddress(sink.url, sink.allow_private_network === true, deps.reach, "url");
  }
  await checkedStored(sink, deps.clock, deps.reach);
  return sink;
}

/** /api/log-sinks: every sink and where it stands; those of the API added, changed and removed, those of the configuration read-only. */
export function logSinkRoutes(deps: LogSinkRouteDeps) {
  const { live, store } = deps;
  const statusOf = async (name: string) => {
    const sink = live.get(name);
    if (!sink) throw notFound(`log sink '${name}' not found`);
    return sinkStatus(deps.db, deps.read, sink, deps.clock.now());
  };
  const writable = (name: string) => {
    if (live.fromConfig.some((sink) => sink.name === name)) throw conflict(`log sink '${name}' ${READ_ONLY}`, "name");
  };
  return new Elysia({ name: "log-sinks", prefix: "/api/log-sinks" })
    .get("/", async () => {
      const at = deps.clock.now();
      const statuses = await Promise.all(live.all().map((sink) => sinkStatus(deps.db, deps.read, sink, at)));
      return { sinks: statuses, count: statuses.length };
    }, replies({ 200: LogSinkList }, { summary: "List log sinks", description: "Each sink, of `log_sinks` in the configuration or added here: its state, the last row delivered, its lag in rows and seconds, its failures and the last error (never a secret)." }))
    .post("/", async ({ body, request, set }) => {
      writable(body.name);
      await store.create(await checked(request, body, deps), new Date(deps.clock.now()));
      await deps.reload();
      set.status = 201;
      return statusOf(body.name);
    }, { body: LogSinkCreate, ...replies({ 201: LogSinkStatus }, { summary: "Add a log sink", description: "Delivery starts at once on one node, from the rows stored from now on (or every stored row with `start_from: stored_rows`). A 400 names `filter` when it is not a boolean CEL expression over the row, `fields` when one is no field of a row." }) })
    .get("/:name", ({ params }) => statusOf(params.name), { params: SinkNameParams, ...replies({ 200: LogSinkStatus }, { summary: "Get a log sink" }) })
    .put("/:name", async ({ params, body, request }) => {
      writable(params.name);
      await store.replace(await checked(request, await store.merged(params.name, body), deps), new Date(deps.clock.now()));
      await deps.reload();
      return statusOf(params.name);
    }, { params: SinkNameParams, body: LogSinkUpdate, ...replies({ 200: LogSinkStatus }, { summary: "Change a log sink", description: "Applies from the sink's next batch, on whichever node delivers it; its cursor stays." }) })
    .delete("/:name", async ({ params }) => {
      writable(params.name);
      await store.remove(params.name);
      await deps.reload();
      return { message: "Log sink deleted successfully" };
    }, { params: SinkNameParams, ...replies({ 200: Deleted }, { summary: "Delete a log sink", description: "Its delivery stops; its cursor stays, so a sink added again under the same name resumes where it stopped." }) });
}
