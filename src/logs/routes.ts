import { Elysia, t } from "elysia";
import type { QueueStatus } from "./batch-writer";
import { ConversationThread, conversationThread } from "./conversation-thread";
import { exportLogs, LOG_EXPORT_DETAIL, LogExportQuery } from "./export";
import { LogFilterQuery, readLogFilters } from "./filters";
import { logHistogram } from "./histogram";
import { modelRankings, RankingsQuery, readRankingOptions, virtualKeyRankings } from "./rankings";
import { getLog, LogListQuery, readPage, searchLogs } from "./search";
import { LogSeries, logSeries, type SeriesGroup, SeriesQuery } from "./series";
import { PromptVersionsQuery, PromptVersionUsage, promptVersionUsage } from "./prompt-versions";
import { logStats } from "./stats";
import { MetadataKeys, recentMetadataKeys } from "./metadata-keys";
import type { LogWriter } from "./table-writes";
import type { ReadDatabase } from "./worker-reader";
import { Deleted, replies } from "../http/replies";
import { LogEntry, LogHistogram, LogPage, LogRankings, LogStats } from "./replies";
import { logEntryExample, logPageExample } from "./examples";

/** What the routes use: the writer (deletions), where queries run, the writer's queue, the clock, whether bodies may be shown, and how stats take percentiles. */
export interface LogRoutesOptions {
  writer: Pick<LogWriter, "deleteIds">;
  read: ReadDatabase;
  /** The writer's queue, and the rows of the crash journal set aside. */
  queueStatus(): QueueStatus & { quarantined: number };
  clock(): Date;
  /** Config `logs_store.content_logging`: while off, an export carries no bodies, even those stored before. */
  contentLogging(): boolean;
  exactPercentilesUpTo?: number;
}

const DeleteLogsBody = t.Object({ ids: t.Array(t.String({ minLength: 1 }), { minItems: 1 }) });

/** /api/logs: search, export, detail, stats, histogram, rankings (spec 4.10) and deletion (spec 4.11). */
export const logRoutes = ({ writer, read, queueStatus, clock, contentLogging, exactPercentilesUpTo }: LogRoutesOptions) =>
  new Elysia({ name: "logs", prefix: "/api/logs" })
    .get("/", ({ query }) => searchLogs(read, readLogFilters(query, clock()), readPage(query)), { query: LogListQuery, ...replies({ 200: LogPage }, { summary: "Search request logs", description: "A page of log rows matching the filters, newest first by default; `content_search` searches request and response text.", examples: { 200: logPageExample } }) })
    .get(
      "/export",
      ({ query }) => {
        const now = clock();
        return exportLogs(read, readLogFilters(query, now), query.format ?? "csv", (query.include_content ?? false) && contentLogging(), now);
      },
      { query: LogExportQuery, detail: LOG_EXPORT_DETAIL },
    )
    .delete(
      "/",
      async ({ body }) => {
        await writer.deleteIds(body.ids);
        return { message: "Logs deleted successfully" };
      },
      { body: DeleteLogsBody, ...replies({ 200: Deleted }, { summary: "Delete request logs" }) },
    )
    .get(
      "/stats",
      async ({ query }) => {
        const now = clock();
        return { ...(await logStats(read, readLogFilters(query, now), now, exactPercentilesUpTo)), log_queue: queueStatus() };
      },
      { query: LogFilterQuery, ...replies({ 200: LogStats }, { summary: "Request log statistics", description: "Totals and latency percentiles of the filtered window, with the change against the window of equal length before it." }) },
    )
    .get(
      "/histogram",
      ({ query }) => {
        const now = clock();
        return logHistogram(read, readLogFilters(query, now), now);
      },
      { query: LogFilterQuery, ...replies({ 200: LogHistogram }, { summary: "Requests over time", description: "Equal buckets aligned to the epoch, sized from the range, empty ones included." }) },
    )
    .get(
      "/series",
      ({ query }) => {
        const now = clock();
        return logSeries(read, readLogFilters(query, now), (query.group_by ?? "model") as SeriesGroup, now);
      },
      {
        query: SeriesQuery,
        ...replies({ 200: LogSeries }, { summary: "Request log usage over time, grouped", description: "Requests, errors, tokens and cost per time bucket, a series per model, provider, virtual key, team, customer, error type, complexity tier or metadata key (`group_by=metadata.<key>`); the same filters as the other log reads. Without a start the window is the last 24 hours." }),
      },
    )
    .get("/metadata-keys", () => recentMetadataKeys(read), { ...replies({ 200: MetadataKeys }, { summary: "Metadata keys in use", description: "The keys of the metadata the latest requests carried: what `group_by=metadata.<key>` and the `metadata_<key>` filters take." }) })
    .get(
      "/rankings",
      // async: a plain function handing back one of two promises is checked before it settles.
      async ({ query }) => {
        const now = clock();
        const options = readRankingOptions(query);
        const rank = options.groupBy === "virtual_key" ? virtualKeyRankings : modelRankings;
        return await rank(read, readLogFilters(query, now), options, now);
      },
      { query: RankingsQuery, ...replies({ 200: LogRankings }, { summary: "Rank models or virtual keys by use", description: "By requests then tokens, each with its change against the window before." }) },
    )
    .get("/prompt-versions", ({ query }) => promptVersionUsage(read, readLogFilters(query, clock()), query.prompt), {
      query: PromptVersionsQuery,
      ...replies({ 200: PromptVersionUsage }, { summary: "A prompt's runs by version", description: "Requests, errors, tokens, cost and latency per version of the prompt, from the log rows its runs left; the same filters as the other log reads." }),
    })
    .get("/conversations/:id", ({ params }) => conversationThread(read, params.id), {
      params: t.Object({ id: t.String() }),
      ...replies({ 200: ConversationThread }, { summary: "A conversation as a thread", description: "The requests sharing a conversation_id, oldest first: what each turn asked and answered, its tokens (cached input apart) and cost, and the totals." }),
    })
    .get("/:id", ({ params }) => getLog(read, params.id), { params: t.Object({ id: t.String() }), ...replies({ 200: LogEntry }, { summary: "Get a request log", description: "The row with the request body (secrets removed) and the response text, when content logging kept them.", examples: { 200: logEntryExample } }) });
