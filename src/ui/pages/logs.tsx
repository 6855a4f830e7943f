import { useCallback, useState } from "preact/hooks";
import { queryString } from "../api/client";
import { logs } from "../api/endpoints";
import type { LogSummary } from "../api/types";
import { useFeedback } from "../components/feedback";
import { PageHeader } from "../components/layout";
import { Empty, ErrorState, Loading } from "../components/states";
import { StatusBadge } from "../components/widgets";
import { formatCount, formatLatency, formatLoggedCost, formatTime } from "../lib/format";
import { useLiveLogs } from "../lib/live-feed";
import { navigate, useLocation } from "../lib/router";
import { useResource } from "../lib/use-resource";
import { useCan } from "../session";
import { type LogChoices, labelOf, loadLogChoices } from "./log-choices";
import { LogDetailPanel } from "./log-detail";
import { LogExportLinks } from "./log-export";
import { FilterBar, type Filters, filterQuery, filtersFrom, narrowingFilters } from "./log-filters";

const PAGE_SIZE = 50;
const DELETE_BATCH = 1000;
const LIVE_ROWS_KEPT = 200;

/** Removes every log matching the filters, a page of ids at a time (the API deletes by id). */
async function deleteMatching(filters: Filters): Promise<number> {
  let removed = 0;
  for (;;) {
    const page = await logs.list({ ...filterQuery(filters), limit: DELETE_BATCH, offset: 0, include_total: false });
    if (page.logs.length === 0) return removed;
    await logs.remove(page.logs.map((log) => log.id));
    removed += page.logs.length;
    if (page.logs.length < DELETE_BATCH) return removed;
  }
}

/** "pii-redaction: redact ×2": what guardrails did to a request, one verdict after another. */
export const verdictsOf = (log: Pick<LogSummary, "guardrails">) => log.guardrails.map((verdict) => `${verdict.guardrail}: ${verdict.action}${verdict.matches > 1 ? ` ×${verdict.matches}` : ""}`).join(", ");

const COLUMNS = ["Time", "Status", "Model", "Virtual key", "Provider key", "Error type", "Guardrails"];

function LogRow({
  log,
  selected,
  onSelect,
  onOpen,
  fresh,
  selectable,
  withRegion,
  choices,
}: {
  log: LogSummary;
  selected: boolean;
  onSelect(checked: boolean): void;
  onOpen(): void;
  fresh: boolean;
  selectable: boolean;
  withRegion: boolean;
  choices?: LogChoices;
}) {
  const none = <span class="muted">–</span>;
  return (
    <tr class={fresh ? "fresh" : undefined}>
      {selectable && (
        <td>
          <input type="checkbox" aria-label={`Select request ${log.id}`} checked={selected} onChange={(event) => onSelect(event.currentTarget.checked)} />
        </td>
      )}
      <td>
        <button type="button" class="link" onClick={onOpen} aria-label={`${formatTime(log.timestamp)}: open request ${log.id}`}>
          {formatTime(log.timestamp)}
        </button>
      </td>
      <td class="nowrap">
        <StatusBadge status={log.status} /> {log.status_code ?? ""}
      </td>
      <td>
        {log.provider && <span class="muted">{log.provider}/</span>}
        {log.model || <span class="muted">–</span>}
        {log.internal_caller && <span class="badge badge-neutral">{log.internal_caller}</span>}
      </td>
      <td>{log.virtual_key_name ?? none}</td>
      <td>{labelOf(choices?.providerKeys, log.selected_key_id) ?? none}</td>
      <td>{log.error_type ?? none}</td>
      <td>{verdictsOf(log) || none}</td>
      {withRegion && <td>{log.region ?? none}</td>}
      <td class="number">{formatCount(log.total_tokens)}</td>
      <td class="number">{formatLoggedCost(log.cost)}</td>
      <td class="number">{formatLatency(log.latency)}</td>
    </tr>
  );
}

/** The request log: filters in the URL, a page at a time from the server, a live tail, detail and deletion. */
export function LogsPage() {
  const { search } = useLocation();
  const filters = filtersFrom(search);
  const offset = Number(search.get("offset") ?? 0);
  const filterKey = queryString(filterQuery(filters));
  const can = useCan();
  const { toast, confirm } = useFeedback();
  // Live by default: new requests appear at the top of the first page until paused.
  const [tail, setTail] = useState(true);
  const choices = useResource(() => loadLogChoices(can), []);
  const [liveRows, setLiveRows] = useState<LogSummary[]>([]);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [open, setOpen] = useState<string>();
  // No total: paging needs only whether a full page came back, and counting every match is what costs at a million rows.
  const page = useResource(() => logs.list({ ...filterQuery(filters), limit: PAGE_SIZE, offset, include_total: false }), [filterKey, offset]);
  const tailing = tail && offset === 0 && (filters.sort_by ?? "timestamp") === "timestamp" && filters.order !== "asc";
  const liveState = useLiveLogs(tailing, filterQuery(filters), (log) => setLiveRows((rows) => [log, ...rows.filter((row) => row.id !== log.id)].slice(0, LIVE_ROWS_KEPT)));

  const go = useCallback((next: Filters, nextOffset = 0) => {
    setLiveRows([]);
    setSelected(new Set());
    const query = queryString({ ...filterQuery(next), offset: nextOffset || undefined });
    navigate(`/ui/logs${query}`);
  }, []);

  const pageRows = page.data?.logs ?? [];
  const shownIds = new Set(liveRows.map((row) => row.id));
  // Paused, the rows that came live stay; only new ones stop coming.
  const rows = [...liveRows, ...pageRows.filter((row) => !shownIds.has(row.id))];
  const canDelete = can("Logs:Delete");
  // A deployment whose nodes name no region (GATEWAY_REGION) has no use for the column.
  const withRegion = Boolean(filters.regions) || rows.some((row) => row.region);

  const deleteSelected = async () => {
    const ids = [...selected];
    if (!(await confirm(`Delete ${ids.length} request log${ids.length === 1 ? "" : "s"}?`, <p>They are removed from the database for good.</p>))) return;
    try {
      await logs.remove(ids);
      toast(`Deleted ${ids.length} log${ids.length === 1 ? "" : "s"}`);
      setSelected(new Set());
      setLiveRows((current) => current.filter((row) => !selected.has(row.id)));
      page.reload();
    } catch (error) {
      toast((error as Error).message, "error");
    }
  };

  const deleteAllMatching = async () => {
    const narrowed = narrowingFilters(filters);
    const what = narrowed.length === 0 ? "every request log (no filter is set)" : `every request log matching the filters (${narrowed.join(", ")})`;
    if (!(await confirm("Delete all matching logs?", <p>This deletes {what}. It cannot be undone.</p>, "Delete all matching"))) return;
    try {
      const removed = await deleteMatching(filters);
      toast(`Deleted ${removed} log${removed === 1 ? "" : "s"}`);
      setLiveRows([]);
      setSelected(new Set());
      page.reload();
    } catch (error) {
      toast((error as Error).message, "error");
    }
  };

  const allSelected = rows.length > 0 && rows.every((row) => selected.has(row.id));
  return (
    <>
      <PageHeader title="Logs">
        <label class="switch">
          <input type="checkbox" role="switch" checked={tail} onChange={(event) => setTail(event.currentTarget.checked)} /> Live updates
          {tail && <span class={`live-dot live-${liveState}`} role="img" aria-label={tailing ? `live updates ${liveState}` : "live updates show only on the first page, newest first"} />}
        </label>
        <LogExportLinks query={filterQuery(filters)} />
        {canDelete && (
          <>
            <button type="button" class="danger" disabled={selected.size === 0} onClick={deleteSelected}>
              Delete selected{selected.size > 0 ? ` (${selected.size})` : ""}
            </button>
            <button type="button" class="danger" onClick={deleteAllMatching}>
              Delete all matching
            </button>
          </>
        )}
      </PageHeader>
      <FilterBar key={filterKey} filters={filters} choices={choices.data} onApply={(next) => go(next)} />
      {page.error && <ErrorState error={page.error} retry={page.reload} />}
      {!page.data && !page.error && <Loading what="Loading logs" />}
      {page.data && rows.length === 0 && (
        <Empty title={narrowingFilters(filters).length ? "No request matches these filters" : "No requests logged yet"}>
          <p>{narrowingFilters(filters).length ? "Widen the time range or clear a filter." : "Requests sent to /v1/... appear here as soon as they finish."}</p>
        </Empty>
      )}
      {rows.length > 0 && (
        <div class="table-wrap">
          <table class="logs" aria-label="Request logs" aria-busy={page.loading}>
            <thead>
              <tr>
                {canDelete && (
                  <th scope="col">
                    <input type="checkbox" aria-label="Select every request on this page" checked={allSelected} onChange={(event) => setSelected(event.currentTarget.checked ? new Set(rows.map((row) => row.id)) : new Set())} />
                  </th>
                )}
                {COLUMNS.map((column) => (
                  <th key={column} scope="col">
                    {column}
                  </th>
                ))}
                {withRegion && <th scope="col">Region</th>}
                <th scope="col" class="number">
                  Tokens
                </th>
                <th scope="col" class="number">
                  Cost
                </th>
                <th scope="col" class="number">
                  Latency
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((log) => (
                <LogRow
                  key={log.id}
                  log={log}
                  selectable={canDelete}
                  withRegion={withRegion}
                  choices={choices.data}
                  fresh={shownIds.has(log.id)}
                  selected={selected.has(log.id)}
                  onOpen={() => setOpen(log.id)}
                  onSelect={(checked) =>
                    setSelected((current) => {
                      const next = new Set(current);
                      if (checked) next.add(log.id);
                      else next.delete(log.id);
                      return next;
                    })
                  }
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {page.data && (offset > 0 || page.data.count === PAGE_SIZE) && (
        <nav class="pager" aria-label="Pages">
          <button type="button" disabled={offset === 0} onClick={() => go(filters, Math.max(0, offset - PAGE_SIZE))}>
            Previous page
          </button>
          <span class="muted">
            Rows {offset + 1}–{offset + page.data.count}
          </span>
          <button type="button" disabled={page.data.count < PAGE_SIZE} onClick={() => go(filters, offset + PAGE_SIZE)}>
            Next page
          </button>
        </nav>
      )}
      {open && <LogDetailPanel id={open} choices={choices.data} onClose={() => setOpen(undefined)} />}
    </>
  );
}
