import { and, eq, inArray, isNotNull, type SQL, sql } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import { requestLogGroupHours, requestLogs } from "../db/schema/logs";
import type { LogFilters } from "./filters";
import { ADD_TO_ROLLED_UP, type Grouping, HOUR_MS, type HourlySource, onlyCoarseFilters, ROLLED_UP_FIGURES, withinHours } from "./hourly";

/** The columns request_log_group_hours keeps apart, by the grouping's name (a series' `group_by`). */
export const GROUPED_COLUMNS = {
  virtual_key: requestLogs.virtualKeyId,
  team: requestLogs.teamId,
  customer: requestLogs.customerId,
  error_type: requestLogs.errorType,
  complexity_tier: requestLogs.complexityTier,
} as const;
export type ColumnGrouping = keyof typeof GROUPED_COLUMNS;
export const METADATA_GROUPING = "metadata.";
/** A grouping of request_log_group_hours: a column's value, or `metadata.<key>`: each text value of that metadata key. */
export type RolledUpGrouping = ColumnGrouping | `${typeof METADATA_GROUPING}${string}`;

/** A log's grouped columns as one JSON object, each a (grouping, value) row of json_each; a null is no group. */
const COLUMN_GROUPS = `json_object(${Object.entries(GROUPED_COLUMNS)
  .map(([grouping, column]) => `'${grouping}', batch.${column.name}`)
  .join(", ")})`;

/** What the roll-up reads of each log: the groups and the figures, not the content. */
const BATCH_COLUMNS = [
  "timestamp",
  "status",
  "metadata",
  ...Object.values(GROUPED_COLUMNS).map((column) => column.name),
  ...["input_tokens", "output_tokens", "cached_tokens", "reasoning_tokens", "total_tokens", "cost", "latency_ms", "cache_hit_type", "time_to_first_token_ms"],
].join(", ");

/**
 * Rolls the `?` rows inserted just before it into request_log_group_hours, inside the batch's
 * transaction, before the full-text indexing (see ROLL_UP_INSERTED): each log counts once in each
 * of its groups. The logs_rollups migration repeats it (backfill, and the triggers on deletion and on a change
 * of metadata).
 */
export const ROLL_UP_GROUPS = `WITH inserted AS MATERIALIZED (SELECT last_insert_rowid() AS last),
  batch AS (SELECT ${BATCH_COLUMNS} FROM request_logs, inserted WHERE seq > inserted.last - ? AND seq <= inserted.last AND internal_caller IS NULL),
  grouped AS (
    SELECT entry.key AS grouping, entry.value AS value, batch.* FROM batch, json_each(${COLUMN_GROUPS}) AS entry WHERE entry.type = 'text'
    UNION ALL
    SELECT '${METADATA_GROUPING}' || entry.key, entry.value, batch.* FROM batch, json_each(batch.metadata) AS entry WHERE batch.metadata <> '{}' AND entry.type = 'text')
  INSERT INTO request_log_group_hours
  SELECT grouping, timestamp / ${HOUR_MS} * ${HOUR_MS}, value, status, ${ROLLED_UP_FIGURES}
  FROM grouped
  WHERE true
  GROUP BY 1, 2, 3, 4
  ${ADD_TO_ROLLED_UP}`;

/** The list filter on each grouped column. */
const LIST_OF_GROUPING: Partial<Record<string, ColumnGrouping>> = { virtual_key_ids: "virtual_key", team_ids: "team", customer_ids: "customer", error_types: "error_type" };

/** The filters as request_log_group_hours sees them: the one grouping they narrow to, if any, and its values. */
export interface Narrowing {
  grouping?: RolledUpGrouping;
  values?: string[];
}

/**
 * How request_log_group_hours answers `filters`: client traffic by window and status, and at most
 * one of a list of virtual keys, teams, customers or error types, or one metadata value. Undefined
 * when it cannot.
 */
export function narrowingOf(filters: LogFilters): Narrowing | undefined {
  const lists = Object.keys(filters.lists).filter((name) => name !== "status");
  const pairs = Object.entries(filters.metadata);
  if (lists.length + pairs.length > 1 || !onlyCoarseFilters(filters, ["status", ...Object.keys(LIST_OF_GROUPING)])) return undefined;
  const [pair] = pairs;
  if (pair) return { grouping: `${METADATA_GROUPING}${pair[0]}`, values: [pair[1]] };
  const [list] = lists;
  return list ? { grouping: LIST_OF_GROUPING[list], values: filters.lists[list as keyof typeof filters.lists] } : {};
}

/** request_log_group_hours of `grouping`, narrowed to `values` and the filters' statuses. */
export function groupHoursOf(filters: LogFilters, grouping: RolledUpGrouping, values?: string[]): HourlySource {
  const status = filters.lists.status as Array<"processing" | "success" | "error"> | undefined;
  return {
    table: requestLogGroupHours,
    where: (hours) =>
      and(
        eq(requestLogGroupHours.grouping, grouping),
        ...withinHours(requestLogGroupHours.hour, hours),
        ...(values ? [inArray(requestLogGroupHours.value, values)] : []),
        ...(status ? [inArray(requestLogGroupHours.status, status)] : []),
      ),
  };
}

/** The column (or metadata value) a grouping reads from the logs; the key is bound as a quoted JSON path, so no key is read as SQL or as a path. */
function groupedColumn(grouping: RolledUpGrouping): AnySQLiteColumn | SQL {
  if (!grouping.startsWith(METADATA_GROUPING)) return GROUPED_COLUMNS[grouping as ColumnGrouping];
  return sql`(${requestLogs.metadata} ->> ${`$."${grouping.slice(METADATA_GROUPING.length)}"`})`;
}

/** Usage per value of `grouping`, as `value`; logs without one are left out. */
export function byValueOf(grouping: RolledUpGrouping): Grouping<{ value: string }> {
  const column = groupedColumn(grouping);
  return { hourly: { value: requestLogGroupHours.value }, raw: { value: sql<string>`${column}` }, rawCondition: isNotNull(column) };
}
