import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { logs } from "../api/endpoints";
import type { Histogram, LogStats, Ranking } from "../api/types";
import { type Series, TimeChart } from "../components/chart";
import { PageHeader } from "../components/layout";
import { Empty, ErrorState, Loading } from "../components/states";
import { formatCost, formatCount, formatLatency } from "../lib/format";
import { useLiveLogs } from "../lib/live-feed";
import { followLink } from "../lib/router";
import { useResource } from "../lib/use-resource";
import { TableHead } from "../components/table-head";

const WINDOWS = [
  { period: "1h", label: "Last hour", ms: 3_600_000 },
  { period: "24h", label: "24 hours", ms: 86_400_000 },
  { period: "7d", label: "7 days", ms: 7 * 86_400_000 },
  { period: "30d", label: "30 days", ms: 30 * 86_400_000 },
] as const;
type Window = (typeof WINDOWS)[number];

const LIVE_SPAN_MS = 10_000;

function Change({ value, lowerIsBetter }: { value: number | null | undefined; lowerIsBetter?: boolean }) {
  if (value === null || value === undefined) return <span class="change muted">no earlier data</span>;
  const good = lowerIsBetter ? value <= 0 : value >= 0;
  return (
    <span class={`change ${value === 0 ? "muted" : good ? "change-good" : "change-bad"}`}>
      {value > 0 ? "▲" : value < 0 ? "▼" : ""} {Math.abs(value).toFixed(1)} % vs previous
    </span>
  );
}

function Figure({ label, value, change, lowerIsBetter }: { label: string; value: string; change?: number | null; lowerIsBetter?: boolean }) {
  return (
    <section class="figure" aria-label={label}>
      <h2>{label}</h2>
      <p class="figure-value">{value}</p>
      {change !== undefined && <Change value={change} lowerIsBetter={lowerIsBetter} />}
    </section>
  );
}

function errorChange(stats: LogStats): number | null {
  const before = stats.previous?.error_count;
  if (!before) return null;
  return ((stats.error_count - before) / before) * 100;
}

function Figures({ stats, live }: { stats: LogStats; live: string }) {
  return (
    <div class="figures">
      <Figure label="Requests" value={formatCount(stats.total_requests)} change={stats.change?.total_requests} />
      <Figure label="Errors" value={formatCount(stats.error_count)} change={errorChange(stats)} lowerIsBetter />
      <Figure label="Tokens" value={formatCount(stats.total_tokens)} change={stats.change?.total_tokens} />
      <Figure label="Cost" value={formatCost(stats.total_cost)} change={stats.change?.total_cost} />
      <Figure label="Latency p50" value={formatLatency(stats.latency_percentiles.p50)} />
      <Figure label="Latency p99" value={formatLatency(stats.latency_percentiles.p99)} />
      <Figure label="Live requests per second" value={live} />
    </div>
  );
}

const secondsOf = (histogram: Histogram) => histogram.buckets.map((bucket) => new Date(bucket.timestamp).getTime() / 1000);

function Charts({ current, previous }: { current: Histogram; previous: Histogram }) {
  const charts = useMemo(() => {
    const times = secondsOf(current);
    const earlier = (pick: (index: number) => number) => times.map((_, index) => (index < previous.buckets.length ? pick(index) : null));
    const pair = (label: string, read: (bucket: Histogram["buckets"][number]) => number, color: string): Series[] => [
      { label, values: current.buckets.map(read), color },
      { label: "previous window", values: earlier((index) => read(previous.buckets[index]!)), color: "#8a8f98" },
    ];
    return {
      times,
      requests: [...pair("requests", (bucket) => bucket.count, "#3b82f6"), { label: "errors", values: current.buckets.map((bucket) => bucket.error), color: "#ef4444" }],
      tokens: pair("tokens", (bucket) => bucket.total_tokens, "#8b5cf6"),
      cost: pair("cost", (bucket) => bucket.total_cost, "#10b981"),
      latency: pair("average latency", (bucket) => bucket.average_latency, "#f59e0b"),
    };
  }, [current, previous]);
  return (
    <div class="charts">
      <TimeChart title="Requests and errors" times={charts.times} series={charts.requests} />
      <TimeChart title="Tokens" times={charts.times} series={charts.tokens} format={formatCount} />
      <TimeChart title="Cost" times={charts.times} series={charts.cost} format={formatCost} />
      <TimeChart title="Average latency" times={charts.times} series={charts.latency} format={formatLatency} />
    </div>
  );
}

interface Ranked {
  name: string;
  requests: number;
  cost: number;
}

function TopList({ title, rows, empty }: { title: string; rows: Ranked[]; empty: string }) {
  return (
    <section class="card" aria-label={title}>
      <h2>{title}</h2>
      {rows.length === 0 ? (
        <p class="muted">{empty}</p>
      ) : (
        <table>
          <TableHead columns={["Name", { label: "Requests", number: true }, { label: "Cost", number: true }]} />
          <tbody>
            {rows.slice(0, 8).map((row) => (
              <tr key={row.name}>
                <td>{row.name}</td>
                <td class="number">{formatCount(row.requests)}</td>
                <td class="number">{formatCost(row.cost)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function byProvider(rankings: Ranking[]): Ranked[] {
  const totals = new Map<string, Ranked>();
  for (const row of rankings) {
    const entry = totals.get(row.provider) ?? { name: row.provider, requests: 0, cost: 0 };
    entry.requests += row.total_requests;
    entry.cost += row.total_cost;
    totals.set(row.provider, entry);
  }
  return [...totals.values()].sort((a, b) => b.requests - a.requests);
}

async function loadOverview(window: Window) {
  const now = Date.now();
  const previousRange = { start_time: new Date(now - 2 * window.ms).toISOString(), end_time: new Date(now - window.ms).toISOString() };
  const [stats, current, previous, rankings, keys] = await Promise.all([
    logs.stats({ period: window.period }),
    logs.histogram({ start_time: new Date(now - window.ms).toISOString(), end_time: new Date(now).toISOString() }),
    logs.histogram(previousRange),
    logs.rankings({ period: window.period, all: true }),
    logs.virtualKeyRankings({ period: window.period, limit: 8 }),
  ]);
  return { stats, current, previous, rankings: rankings.rankings, keys: keys.rankings.map((row) => ({ name: row.virtual_key_name ?? row.virtual_key_id, requests: row.total_requests, cost: row.total_cost })) };
}

/** Requests per second over the last ten seconds, counted from the live feed. */
function useLiveRate(): string {
  const arrivals = useRef<number[]>([]);
  const [, redraw] = useState(0);
  const state = useLiveLogs(true, {}, () => {
    arrivals.current.push(Date.now());
    redraw((count) => count + 1);
  });
  // The figure falls back to zero when nothing arrives.
  useEffect(() => {
    const timer = setInterval(() => redraw((count) => count + 1), 2000);
    return () => clearInterval(timer);
  }, []);
  const since = Date.now() - LIVE_SPAN_MS;
  arrivals.current = arrivals.current.filter((time) => time >= since);
  if (state !== "live") return "connecting…";
  return `${(arrivals.current.length / (LIVE_SPAN_MS / 1000)).toFixed(1)} req/s`;
}

export function OverviewPage() {
  const [window, setWindow] = useState<Window>(WINDOWS[1]);
  const overview = useResource(() => loadOverview(window), [window]);
  const live = useLiveRate();
  const data = overview.data;
  return (
    <>
      <PageHeader title="Overview">
        <div class="segmented" role="group" aria-label="Time window">
          {WINDOWS.map((entry) => (
            <button key={entry.period} type="button" aria-pressed={entry === window} onClick={() => setWindow(entry)}>
              {entry.label}
            </button>
          ))}
        </div>
        <button type="button" onClick={overview.reload}>
          Refresh
        </button>
      </PageHeader>
      {overview.error && <ErrorState error={overview.error} retry={overview.reload} />}
      {!data && !overview.error && <Loading what="Loading the overview" />}
      {data && (
        <>
          <Figures stats={data.stats} live={live} />
          {data.stats.total_requests === 0 && data.stats.previous?.total_requests === 0 ? (
            <Empty title="No requests in this window">
              <p>
                Send a request through the gateway, e.g. <code>POST /v1/chat/completions</code> with a <a href="/ui/governance/virtual-keys" onClick={(event) => followLink(event, "/ui/governance/virtual-keys")}>virtual key</a>, after adding a{" "}
                <a href="/ui/providers" onClick={(event) => followLink(event, "/ui/providers")}>
                  provider
                </a>
                . Or pick a longer window.
              </p>
            </Empty>
          ) : (
            <Charts current={data.current} previous={data.previous} />
          )}
          <div class="tops">
            <TopList title="Top models" rows={data.rankings.map((row) => ({ name: `${row.provider}/${row.model}`, requests: row.total_requests, cost: row.total_cost }))} empty="No model was used in this window." />
            <TopList title="Top providers" rows={byProvider(data.rankings)} empty="No provider answered in this window." />
            <TopList title="Top virtual keys" rows={data.keys} empty="No virtual key was used in this window." />
          </div>
        </>
      )}
    </>
  );
}
