import { Elysia } from "elysia";
import { replies } from "../../http/replies";
import { BackfillRun, BackfillStatus } from "../replies";
import { isConfigured } from "../config/resolve";
import type { WarpConfigStore } from "../config/store";
import { notConfigured } from "../errors";
import type { LiveLogIndexer } from "./live-indexer";
import type { LogBackfill } from "./backfill";
import { embeddingSpaceOf } from "./embedding-space";
import type { LogVectorStore } from "./vector-store";

export interface LogIndexDeps {
  config: WarpConfigStore;
  vectors: LogVectorStore;
  backfill: LogBackfill;
  live: LiveLogIndexer;
}

/**
 * /api/warp/log-index/backfill: start a run over the logs not yet indexed (202), read how it
 * goes, cancel it. The status also counts the vectors of the configured space and the live
 * indexer's queue, so an operator sees how much of the history is searchable.
 */
export const logIndexRoutes = ({ config, vectors, backfill, live }: LogIndexDeps) =>
  new Elysia({ name: "warp-log-index", prefix: "/api/warp/log-index/backfill" })
    .post("/", async ({ set }) => {
      const current = await config.read();
      if (!isConfigured(current)) throw notConfigured();
      set.status = 202;
      return backfill.start(current);
    }, replies({ 202: BackfillRun }, { summary: "Start a log-index backfill", description: "Embeds the logs stored without a vector in the configured space, newest first; answers once it knows how many. 409 while one runs." }))
    .get("/status", async () => {
      // The counters first: a batch counts as indexed only once its vectors are stored, so
      // counting the vectors after them never reports fewer vectors than indexed logs.
      const run = backfill.status();
      const liveIndex = live.status();
      const current = await config.read();
      const indexed = isConfigured(current) ? await vectors.countIndexed(embeddingSpaceOf(current)) : 0;
      return { ...run, vectors_in_space: indexed, live_index: liveIndex };
    }, replies({ 200: BackfillStatus }, { summary: "Get the log-index backfill's progress", description: "The last run on this node, the vectors the configured space holds and the indexer of new logs." }))
    .post("/cancel", () => backfill.cancel(), replies({ 200: BackfillRun }, { summary: "Cancel the log-index backfill", description: "Answers once the run has stopped, with how it ended; the logs indexed so far keep their vectors." }));
