import { useEffect, useState } from "preact/hooks";
import { logSinks } from "../api/endpoints";
import type { LogSinkStatus } from "../api/types";
import { PageHeader } from "../components/layout";
import { useFeedback } from "../components/feedback";
import { Empty, ErrorState, Loading } from "../components/states";
import { DeleteButton, EditButton } from "../components/widgets";
import { useSave } from "../lib/use-save";
import { useCan } from "../session";
import { LogSinkForm } from "./log-sink-form";
import { TableHead } from "../components/table-head";
import { formatCount, formatTime } from "../lib/format";
import { useResource } from "../lib/use-resource";

const REFRESH_MS = 3000;

const STATE_BADGE: Record<string, string> = { delivering: "ok", backing_off: "bad" };
const STATE_LABEL: Record<string, string> = { delivering: "delivering", backing_off: "backing off", starting: "starting" };

/** "42 s", "3 min", "2 h": how long the oldest row not yet delivered has waited. */
function formatWait(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
}

/** Edit and Delete for a sink added through the API; one of the configuration is changed there. */
function SinkActions({ sink, onEdit, onDelete }: { sink: LogSinkStatus; onEdit(): void; onDelete(): void }) {
  const can = useCan();
  if (sink.source === "config") return <span class="muted small">in config.json</span>;
  return (
    <>
      {can("LogSinks:Update") && <EditButton name={sink.name} onEdit={onEdit} />}
      {can("LogSinks:Delete") && <DeleteButton name={sink.name} onDelete={onDelete} />}
    </>
  );
}

function SinkRow({ sink, onEdit, onDelete }: { sink: LogSinkStatus; onEdit(): void; onDelete(): void }) {
  return (
    <tr>
      <th scope="row">
        {sink.name}
        <div class="muted small">
          {sink.type}: {sink.destination}
        </div>
        {sink.filter && <div class="muted small">where {sink.filter}</div>}
      </th>
      <td>
        <span class={`badge badge-${STATE_BADGE[sink.state] ?? "neutral"}`}>{STATE_LABEL[sink.state] ?? sink.state}</span>
        {sink.next_attempt_at && sink.state === "backing_off" && <div class="muted small">next try {formatTime(sink.next_attempt_at)}</div>}
        {sink.node && <div class="muted small">on {sink.node}</div>}
      </td>
      <td>
        {sink.last_delivered_at ? formatTime(sink.last_delivered_at) : "never"}
        {sink.last_row_at && <div class="muted small">row logged {formatTime(sink.last_row_at)}</div>}
      </td>
      <td class="number">{formatCount(sink.delivered_rows)}</td>
      <td class="number">
        {formatCount(sink.lag_rows)} {sink.lag_rows === 1 ? "row" : "rows"}
        {sink.lag_rows > 0 && <div class="muted small">oldest {formatWait(sink.lag_seconds)}</div>}
      </td>
      <td class="number">
        {formatCount(sink.consecutive_failures)} in a row
        <div class="muted small">{formatCount(sink.failed_attempts)} in all</div>
      </td>
      <td class="small">
        {sink.last_error ?? "–"}
        {sink.last_error && sink.last_failure_at && <div class="muted">{formatTime(sink.last_failure_at)}</div>}
      </td>
      <td class="row-actions">
        <SinkActions sink={sink} onEdit={onEdit} onDelete={onDelete} />
      </td>
    </tr>
  );
}

/** The log sinks and where each stands, refreshed while shown; those added here are edited and deleted here. */
export function LogSinksPage() {
  const can = useCan();
  const { confirm } = useFeedback();
  const list = useResource(() => logSinks.list(), []);
  const { save } = useSave(list.reload);
  const [form, setForm] = useState<{ editing?: LogSinkStatus }>();
  const remove = async (sink: LogSinkStatus) => {
    if (await confirm(`Delete log sink ${sink.name}?`, <p>Rows stop going to it. Added again under the same name, it resumes where it stopped.</p>)) await save(() => logSinks.remove(sink.name), `Log sink ${sink.name} deleted`);
  };
  useEffect(() => {
    const timer = setInterval(list.reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [list.reload]);
  const sinks = list.data?.sinks;
  return (
    <>
      <PageHeader title="Log sinks">
        {can("LogSinks:Create") && (
          <button type="button" class="primary" onClick={() => setForm({})}>
            Add log sink
          </button>
        )}
      </PageHeader>
      {list.error && <ErrorState error={list.error} retry={list.reload} />}
      {!sinks && !list.error && <Loading what="Loading log sinks" />}
      {sinks?.length === 0 && (
        <Empty title="No log sink yet">
          <p>
            Add a sink here, or under <code>log_sinks</code> in config.json, to have every stored log row sent to an HTTP receiver (JSON lines, gzip, signed) or appended to a file a log shipper tails.
          </p>
        </Empty>
      )}
      {!!sinks?.length && (
        <section class="card" aria-labelledby="log-sinks-title">
          <div class="card-header">
            <h2 id="log-sinks-title">Delivery</h2>
          </div>
          <div class="table-wrap">
            <table aria-label="Log sinks">
              <TableHead columns={["Sink", "State", "Last delivered", { label: "Rows delivered", number: true }, { label: "Lag", number: true }, { label: "Failures", number: true }, "Last error"]} actions />
              <tbody>
                {sinks.map((sink) => (
                  <SinkRow key={sink.name} sink={sink} onEdit={() => setForm({ editing: sink })} onDelete={() => remove(sink)} />
                ))}
              </tbody>
            </table>
          </div>
        </section>
      )}
      {form && <LogSinkForm editing={form.editing} reload={list.reload} onClose={() => setForm(undefined)} />}
    </>
  );
}
