import { useMemo } from "preact/hooks";
import { customers, guardrails, logs, teams } from "../api/endpoints";
import { queryString } from "../api/client";
import type { LogSeries, LogStats } from "../api/types";
import { type PickedPoint, type Series, TimeChart } from "../components/chart";
import { SelectField } from "../components/fields";
import { PageHeader } from "../components/layout";
import { TableHead } from "../components/table-head";
import { Empty, ErrorState, Loading } from "../components/states";
import { formatCost, formatCount, formatLatency, formatPercent } from "../lib/format";
import { followLink, navigate, useLocation } from "../lib/router";
import { useResource } from "../lib/use-resource";
import { useCan } from "../session";
import { filterQuery, filtersFrom } from "./log-filters";

const WINDOWS = [
  { period: "1h", label: "Last hour" },
  { period: "24h", label: "24 hours" },
  { period: "7d", label: "7 days" },
  { period: "30d", label: "30 days" },
] as const;

/** A grouping and the logs filter that narrows to one of its values. */
interface Grouping {
  value: string;
  label: string;
  filter: string;
}

const GROUPINGS: Grouping[] = [
  { value: "model", label: "Model", filter: "models" },
  { value: "provider", label: "Provider", filter: "providers" },
  { value: "virtual_key", label: "Virtual key", filter: "virtual_key_ids" },
  { value: "team", label: "Team", filter: "team_ids" },
  { value: "customer", label: "Customer", filter: "customer_ids" },
];

const METADATA_GROUP = "metadata.";
const byMetadata = (key: string): Grouping => ({ value: `${METADATA_GROUP}${key}`, label: `Metadata ${key}`, filter: `metadata_${key}` });

/** The fixed groupings, then one per metadata key in use, and the URL's own when no recent request carried it. */
function groupingChoices(keys: string[] | undefined, current: Grouping): Grouping[] {
  const metadata = (keys ?? []).map(byMetadata);
  const named = current.value.startsWith(METADATA_GROUP) && !metadata.some((entry) => entry.value === current.value) ? [current] : [];
  return [...GROUPINGS, ...metadata, ...named];
}

/** The grouping the URL names: one of the fixed ones or any metadata key (the API checks the key). */
function groupingOf(value: string | null): Grouping {
  if (value?.startsWith(METADATA_GROUP) && value.length > METADATA_GROUP.length) return byMetadata(value.slice(METADATA_GROUP.length));
  return GROUPINGS.find((entry) => entry.value === value) ?? GROUPINGS[0]!;
}

const COLORS = ["#3b82f6", "#10b981", "#f59e0b", "#8b5cf6", "#ef4444", "#06b6d4", "#ec4899", "#84cc16"];
const SHOWN_GROUPS = COLORS.length;

type Group = LogSeries["groups"][number];
type Figure = "requests" | "errors" | "total_tokens" | "total_cost" | "cache_hits";

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const logsLink = (filters: Record<string, string>) => `/ui/logs${queryString(filters)}`;

function Figure({ label, value, previous }: { label: string; value: string; previous?: string }) {
  return (
    <section class="figure" aria-label={label}>
      <h2>{label}</h2>
      <p class="figure-value">{value}</p>
      {previous !== undefined && <span class="change muted">previous window: {previous}</span>}
    </section>
  );
}

/** Requests a guardrail blocked or redacted in the window (and the one before), each a link to those logs. */
interface GuardrailFigures {
  blocked: LogStats;
  redacted: LogStats;
  /** The logs link of each, with the page's window and filters. */
  links: { blocked: string; redacted: string };
}

function GuardrailFigure({ label, stats, to }: { label: string; stats: LogStats; to: string }) {
  return (
    <section class="figure" aria-label={label}>
      <h2>{label}</h2>
      <p class="figure-value">
        <a href={to} onClick={(event) => followLink(event, to)}>
          {formatCount(stats.total_requests)}
        </a>
      </p>
      <span class="change muted">previous window: {stats.previous ? formatCount(stats.previous.total_requests) : "none"}</span>
    </section>
  );
}

function Figures({ stats, guardrails }: { stats: LogStats; guardrails?: GuardrailFigures }) {
  const before = stats.previous;
  const percentiles = stats.latency_percentiles;
  return (
    <div class="figures">
      <Figure label="Requests" value={formatCount(stats.total_requests)} previous={before ? formatCount(before.total_requests) : "none"} />
      <Figure label="Errors" value={formatCount(stats.error_count)} previous={before ? formatCount(before.error_count) : "none"} />
      <Figure label="Tokens" value={formatCount(stats.total_tokens)} previous={before ? formatCount(before.total_tokens) : "none"} />
      <Figure label="Cost" value={formatCost(stats.total_cost)} previous={before ? formatCost(before.total_cost) : "none"} />
      <Figure label="Latency p50" value={formatLatency(percentiles.p50)} />
      <Figure label="Latency p95" value={formatLatency(percentiles.p95)} />
      <Figure label="Latency p99" value={formatLatency(percentiles.p99)} />
      {guardrails && <GuardrailFigure label="Blocked by guardrails" stats={guardrails.blocked} to={guardrails.links.blocked} />}
      {guardrails && <GuardrailFigure label="Redacted by guardrails" stats={guardrails.redacted} to={guardrails.links.redacted} />}
    </div>
  );
}

function shownTotal(group: Group, figure: Figure): string {
  if (figure === "total_cost") return formatCost(sum(group.total_cost));
  if (figure === "cache_hits") return formatPercent(sum(group.cache_hits) / Math.max(1, sum(group.requests)));
  return formatCount(sum(group[figure]));
}

interface GroupTableProps {
  title: string;
  groups: Group[];
  /** The logs filter naming one group, and those already narrowing the page. */
  filter: string;
  narrowing: Record<string, string>;
  period: string;
  figures: Array<[Figure, string]>;
}

function GroupTable({ title, groups, filter, narrowing, period, figures }: GroupTableProps) {
  return (
    <section class="card" aria-label={title}>
      <h2>{title}</h2>
      {groups.length === 0 ? (
        <p class="muted">Nothing in this window.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <TableHead columns={["Name", ...figures.map(([, label]) => ({ label, number: true as const }))]} />
            <tbody>
              {groups.map((group) => {
                const to = logsLink({ ...narrowing, [filter]: group.key, period });
                return (
                  <tr key={group.key}>
                    <td>
                      <a href={to} onClick={(event) => followLink(event, to)}>
                        {group.label}
                      </a>
                    </td>
                    {figures.map(([figure]) => (
                      <td key={figure} class="number">
                        {shownTotal(group, figure)}
                      </td>
                    ))}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** The logs filters of one bucket: from its start to the millisecond before the next. */
function bucketRange(series: LogSeries, index: number): Record<string, string> {
  const start = new Date(series.timestamps[index]!).getTime();
  return { start_time: new Date(start).toISOString(), end_time: new Date(start + series.bucket_size_seconds * 1000 - 1).toISOString() };
}

interface ChartsProps {
  series: LogSeries;
  grouping: Grouping;
  /** The logs filters narrowing the page: a drill keeps them. */
  narrowing: Record<string, string>;
}

function Charts({ series, grouping, narrowing }: ChartsProps) {
  const charts = useMemo(() => {
    const times = series.timestamps.map((timestamp) => new Date(timestamp).getTime() / 1000);
    const lines = (figure: Figure): Series[] => series.groups.slice(0, SHOWN_GROUPS).map((group, index) => ({ label: group.label, values: group[figure], color: COLORS[index]! }));
    const firstToken = series.groups.slice(0, SHOWN_GROUPS).map((group, index) => ({ label: group.label, values: group.time_to_first_token, color: COLORS[index]! }));
    return { times, requests: lines("requests"), errors: lines("errors"), tokens: lines("total_tokens"), cost: lines("total_cost"), cacheHits: lines("cache_hits"), firstToken };
  }, [series]);
  const narrowingKey = queryString(narrowing);
  // A point opens the logs it counts: its group over its bucket (on the errors chart, the errors only).
  const drills = useMemo(() => {
    const drill =
      (only: Record<string, string>) =>
      ({ index, series: position }: PickedPoint) =>
        navigate(logsLink({ ...narrowing, [grouping.filter]: series.groups[position]!.key, ...bucketRange(series, index), ...only }));
    return { all: drill({}), errors: drill({ status: "error" }) };
  }, [series, grouping, narrowingKey]);
  const by = grouping.label.toLowerCase();
  return (
    <div class="charts">
      <TimeChart title={`Requests by ${by}`} times={charts.times} series={charts.requests} onPick={drills.all} />
      <TimeChart title={`Errors by ${by}`} times={charts.times} series={charts.errors} onPick={drills.errors} />
      <TimeChart title={`Tokens by ${by}`} times={charts.times} series={charts.tokens} format={formatCount} onPick={drills.all} />
      <TimeChart title={`Cost by ${by}`} times={charts.times} series={charts.cost} format={formatCost} onPick={drills.all} />
      <TimeChart title={`Time to first token by ${by}`} times={charts.times} series={charts.firstToken} format={formatLatency} onPick={drills.all} />
      <TimeChart title={`Cache hits by ${by}`} times={charts.times} series={charts.cacheHits} onPick={drills.all} />
    </div>
  );
}

/** The logs filters in the page's URL (all but the window, which the page sets): they narrow every figure and every drill. */
function narrowingOf(search: URLSearchParams): Record<string, string> {
  const { period: _, start_time: __, end_time: ___, sort_by: ____, order: _____, ...rest } = filterQuery(filtersFrom(search));
  return Object.fromEntries(Object.entries(rest).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
}

/** Teams and customers are logged by id: their names, where the role may read them (else the id is shown). */
async function namesOf(groupBy: string, can: (permission: string) => boolean): Promise<Map<string, string>> {
  const rows = groupBy === "team" && can("Teams:View") ? await teams.list() : groupBy === "customer" && can("Customers:View") ? await customers.list() : [];
  return new Map(rows.map((row) => [row.id, row.name]));
}

/** What guardrails blocked and redacted; nothing is read (nor shown) on a deployment without guardrails. */
async function guardrailFigures(query: Record<string, string>, can: (permission: string) => boolean): Promise<GuardrailFigures | undefined> {
  if (can("Guardrails:View") && (await guardrails.list()).length === 0) return undefined;
  const [blocked, redacted] = await Promise.all([logs.stats({ ...query, guardrail_actions: "block" }), logs.stats({ ...query, guardrail_actions: "redact" })]);
  return { blocked, redacted, links: { blocked: logsLink({ ...query, guardrail_actions: "block" }), redacted: logsLink({ ...query, guardrail_actions: "redact" }) } };
}

async function loadAnalytics(period: string, grouping: Grouping, filters: Record<string, string>, can: (permission: string) => boolean) {
  const groupBy = grouping.value;
  const query = { ...filters, period };
  const [stats, series, errors, names, guardrails] = await Promise.all([
    logs.stats(query),
    logs.series({ ...query, group_by: groupBy }),
    logs.series({ ...query, group_by: "error_type" }),
    namesOf(groupBy, can),
    guardrailFigures(query, can),
  ]);
  const named = { ...series, groups: series.groups.map((group) => ({ ...group, label: names.get(group.key) ?? group.label })) };
  // The grouping goes with its figures: while the next one loads, the page keeps naming what it shows.
  return { stats, series: named, errors, grouping, guardrails };
}

/** Charts over a window, grouped by model, provider, virtual key, team, customer or a metadata key, beside the previous window; a click opens the logs behind a point. */
export function AnalyticsPage() {
  const { search } = useLocation();
  const period = WINDOWS.find((entry) => entry.period === search.get("period"))?.period ?? "24h";
  const grouping = groupingOf(search.get("group_by"));
  const filters = narrowingOf(search);
  const filterKey = queryString(filters);
  const can = useCan();
  const analytics = useResource(() => loadAnalytics(period, grouping, filters, can), [period, grouping.value, filterKey]);
  const metadataKeys = useResource(() => logs.metadataKeys(), []);
  const groupings = groupingChoices(metadataKeys.data, grouping);
  const choose = (next: { period?: string; group_by?: string }) => navigate(`/ui/analytics${queryString({ ...filters, period, group_by: grouping.value, ...next })}`, true);
  const data = analytics.data;
  return (
    <>
      <PageHeader title="Analytics">
        <div class="segmented" role="group" aria-label="Time window">
          {WINDOWS.map((entry) => (
            <button key={entry.period} type="button" aria-pressed={entry.period === period} onClick={() => choose({ period: entry.period })}>
              {entry.label}
            </button>
          ))}
        </div>
        <SelectField label="Group by" value={grouping.value} onValue={(value) => choose({ group_by: value })} options={groupings.map(({ value, label }) => ({ value, label }))} />
        <button type="button" onClick={analytics.reload}>
          Refresh
        </button>
      </PageHeader>
      {filterKey && (
        <p class="muted">
          Filtered as in the logs: <code>{filterKey.slice(1)}</code>.{" "}
          <a href={`/ui/analytics${queryString({ period, group_by: grouping.value })}`} onClick={(event) => followLink(event, `/ui/analytics${queryString({ period, group_by: grouping.value })}`)}>
            Clear the filters
          </a>
        </p>
      )}
      {analytics.error && <ErrorState error={analytics.error} retry={analytics.reload} />}
      {!data && !analytics.error && <Loading what="Loading analytics" />}
      {data && (
        <>
          <Figures stats={data.stats} guardrails={data.guardrails} />
          {data.stats.total_requests === 0 ? (
            <Empty title="No requests in this window">
              <p>Pick a longer window, or send requests through the gateway.</p>
            </Empty>
          ) : (
            <>
              <Charts series={data.series} grouping={data.grouping} narrowing={filters} />
              <GroupTable
                title={`By ${data.grouping.label.toLowerCase()}`}
                groups={data.series.groups}
                filter={data.grouping.filter}
                narrowing={filters}
                period={period}
                figures={[
                  ["requests", "Requests"],
                  ["errors", "Errors"],
                  ["total_tokens", "Tokens"],
                  ["total_cost", "Cost"],
                  ["cache_hits", "Cache hit rate"],
                ]}
              />
              <GroupTable title="Errors by type" groups={data.errors.groups} filter="error_types" narrowing={filters} period={period} figures={[["errors", "Errors"]]} />
            </>
          )}
        </>
      )}
    </>
  );
}
