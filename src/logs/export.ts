import { and, desc, getTableColumns, sql } from "drizzle-orm";
import { type Static, Type as t } from "@sinclair/typebox";
import { requestLogs } from "../db/schema/logs";
import { csvRecord } from "../http/csv";
import { logConditions } from "./conditions";
import { LogFilterFields, type LogFilters } from "./filters";
import { LOG_SUMMARY_COLUMNS, logView } from "./search";
import type { ReadDatabase } from "./worker-reader";

/** Rows read per query: a page of long conversations stays a few MB, and 1 M rows are 2,000 queries. */
const EXPORT_PAGE_ROWS = 500;

/** GET /api/logs/export: the filters of GET /api/logs, the file's format, and whether bodies go in it. */
export const LogExportQuery = t.Object(
  {
    ...LogFilterFields,
    format: t.Optional(t.Union([t.Literal("csv"), t.Literal("jsonl")], { description: "csv (default; a header row, RFC 4180 quoting) or jsonl (one JSON object a line)" })),
    include_content: t.Optional(t.Boolean({ description: "default false; true adds request_content and response_content, when logs_store.content_logging is on" })),
  },
  { additionalProperties: true },
);
export type LogExportQuery = Static<typeof LogExportQuery>;
export type ExportFormat = NonNullable<LogExportQuery["format"]>;

type LogView = ReturnType<typeof logView>;
type ContentField = "request_content" | "response_content";
type LogFields = Record<string, unknown>;
/** The CSV columns (and what a log sink's `fields` may name): every field of a listed log, in the order the API shows them (checked complete by the type). */
export const SUMMARY_FIELDS = Object.keys({
  id: 1, parent_request_id: 1, timestamp: 1, object: 1, provider: 1, model: 1, alias: 1, selected_key_id: 1, conversation_id: 1, complexity_tier: 1, complexity_score: 1,
  virtual_key_id: 1, virtual_key_name: 1, team_id: 1, customer_id: 1, user_id: 1, business_unit_id: 1, project_id: 1,
  routing_rule_id: 1, routing_rule_name: 1, routing_engine_used: 1, status: 1, status_code: 1, error_type: 1, error_message: 1,
  stop_reason: 1, tool_call_names: 1, cache_hit_type: 1, guardrails: 1, input_tokens: 1, output_tokens: 1, cached_tokens: 1,
  reasoning_tokens: 1, total_tokens: 1, cost: 1, latency: 1, time_to_first_token: 1, stream: 1, session_id: 1, region: 1,
  internal_caller: 1, metadata: 1, attempts: 1,
} satisfies Record<Exclude<keyof LogView, ContentField>, 1>);
export const CONTENT_FIELDS: ContentField[] = ["request_content", "response_content"];

const FILE = { csv: { mediaType: "text/csv", extension: "csv" }, jsonl: { mediaType: "application/x-ndjson", extension: "jsonl" } } as const;

const FILE_TEXT = { schema: { type: "string" } } as const;
/** The route's OpenAPI detail: the download's two media types. */
export const LOG_EXPORT_DETAIL = {
  summary: "Download every matching log as CSV or JSON lines",
  responses: {
    200: {
      description: "The file, newest first, streamed as it is read; `content-disposition` names it `logs-<time>.csv` or `.jsonl`.",
      content: { [FILE.csv.mediaType]: FILE_TEXT, [FILE.jsonl.mediaType]: FILE_TEXT },
    },
  },
};

/** Where the last page ended, newest first: the next page is strictly older (by time, then by rowid). */
interface Cursor {
  timestamp: number;
  seq: number;
}

/** One page of matching rows after `cursor`, in the list's default order (newest first); keyset, so page 2,000 costs what page 1 does. */
async function pageAfter(read: ReadDatabase, filters: LogFilters, withContent: boolean, cursor: Cursor | undefined) {
  const columns = withContent ? getTableColumns(requestLogs) : LOG_SUMMARY_COLUMNS;
  const after = cursor && sql`(${requestLogs.timestamp}, ${requestLogs.seq}) < (${cursor.timestamp}, ${cursor.seq})`;
  return read
    .select(columns)
    .from(requestLogs)
    .where(and(logConditions(filters), after))
    .orderBy(desc(requestLogs.timestamp), desc(requestLogs.seq))
    .limit(EXPORT_PAGE_ROWS);
}

function lineEncoder(format: ExportFormat, fields: readonly string[]): { header: string; line(view: LogFields): string } {
  if (format === "jsonl") return { header: "", line: (view) => `${JSON.stringify(view)}\n` };
  return { header: csvRecord(fields), line: (view) => csvRecord(fields.map((field) => view[field])) };
}

/** `logs-2026-12-07T16-20-05Z.csv`: sortable, and without the colons some file systems refuse. */
const fileName = (now: Date, format: ExportFormat) => `logs-${now.toISOString().replace(/\.\d+Z$/, "Z").replaceAll(":", "-")}.${FILE[format].extension}`;

/**
 * Every log matching `filters` as a download, read a page at a time as the client takes the
 * file (the stream pulls the next page only once the last is sent), so an export of millions
 * of rows holds one page in memory. Bodies only when `withContent`.
 */
export function exportLogs(read: ReadDatabase, filters: LogFilters, format: ExportFormat, withContent: boolean, now: Date): Response {
  const encoder = lineEncoder(format, withContent ? [...SUMMARY_FIELDS, ...CONTENT_FIELDS] : SUMMARY_FIELDS);
  const bytes = new TextEncoder();
  let cursor: Cursor | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (encoder.header) controller.enqueue(bytes.encode(encoder.header));
    },
    async pull(controller) {
      const rows = await pageAfter(read, filters, withContent, cursor);
      const last = rows.at(-1);
      if (last) cursor = { timestamp: last.timestamp.getTime(), seq: last.seq };
      if (rows.length) controller.enqueue(bytes.encode(rows.map((row) => encoder.line(logView(row))).join("")));
      if (rows.length < EXPORT_PAGE_ROWS) controller.close();
    },
  });
  return new Response(body, {
    headers: {
      "content-type": `${FILE[format].mediaType}; charset=utf-8`,
      "content-disposition": `attachment; filename="${fileName(now, format)}"`,
      "cache-control": "no-store",
    },
  });
}
