import { useEffect, useState } from "preact/hooks";
import { asyncJobs } from "../api/endpoints";
import type { AsyncJob, AsyncJobStatus } from "../api/types";
import { SelectField } from "../components/fields";
import { Empty, ErrorState, Loading } from "../components/states";
import { formatTime } from "../lib/format";
import { useResource } from "../lib/use-resource";
import { useCan } from "../session";
import { TableHead } from "../components/table-head";

const PAGE_SIZE = 20;
const REFRESH_MS = 3000;
const SUMMARY_CHARS = 140;

const STATUS_OPTIONS = [
  { value: "", label: "Any status" },
  ...(["pending", "processing", "completed", "failed"] satisfies AsyncJobStatus[]).map((status) => ({ value: status, label: status })),
];

const BADGE: Record<AsyncJobStatus, string> = { pending: "neutral", processing: "neutral", completed: "ok", failed: "bad", expired: "neutral" };

const clip = (text: string) => (text.length > SUMMARY_CHARS ? `${text.slice(0, SUMMARY_CHARS)}…` : text);

/** The part of a result a reader looks for first: the answer's text, the error's message, or the start of the JSON. */
function summaryOf(job: AsyncJob): string {
  if (job.status === "pending" || job.status === "processing") return "–";
  const body = (job.status === "failed" ? job.error : job.result) as Record<string, unknown> | undefined;
  const text =
    (body?.error as { message?: unknown } | undefined)?.message ??
    (body?.choices as Array<{ message?: { content?: unknown }; text?: unknown }> | undefined)?.[0]?.message?.content ??
    (body?.choices as Array<{ text?: unknown }> | undefined)?.[0]?.text ??
    body?.output_text;
  return clip(typeof text === "string" ? text : JSON.stringify(body ?? null));
}

function JobRow({ job }: { job: AsyncJob }) {
  const body = job.status === "failed" ? job.error : job.result;
  return (
    <tr>
      <td>{formatTime(job.created_at)}</td>
      <td>
        {job.request_type}
        <div class="muted small">{job.id}</div>
      </td>
      <td>
        <span class={`badge badge-${BADGE[job.status]}`}>{job.status}</span>
        {job.status_code !== undefined && <div class="muted small">HTTP {job.status_code}</div>}
      </td>
      <td class="small">
        <div>{summaryOf(job)}</div>
        {body !== undefined && (
          <details>
            <summary>Full {job.status === "failed" ? "error" : "result"}</summary>
            <pre>{JSON.stringify(body, null, 2)}</pre>
          </details>
        )}
      </td>
      <td class="small">{job.webhook ?? "–"}</td>
      <td class="small">{formatTime(job.expires_at)}</td>
    </tr>
  );
}

/** Every caller's async jobs, newest first, refreshed while shown: their state and their result. */
export function AsyncJobs() {
  const can = useCan();
  const [status, setStatus] = useState("");
  const [offset, setOffset] = useState(0);
  const allowed = can("Logs:View");
  const page = useResource(() => (allowed ? asyncJobs.list({ status, limit: PAGE_SIZE, offset }) : Promise.resolve(undefined)), [allowed, status, offset]);
  // Jobs run in the background: the list follows them while it is open.
  useEffect(() => {
    if (!allowed) return;
    const timer = setInterval(page.reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [allowed, page.reload]);
  const data = page.data;
  return (
    <section class="card async-jobs" aria-labelledby="async-jobs-title">
      <div class="card-header">
        <h2 id="async-jobs-title">Async jobs</h2>
        {allowed && (
          <SelectField
            label="Status"
            value={status}
            options={STATUS_OPTIONS}
            onValue={(value) => {
              setStatus(value);
              setOffset(0);
            }}
          />
        )}
      </div>
      {!allowed && <p class="muted">Async jobs carry model output: reading them needs the permission Logs:View, which your role does not have.</p>}
      {page.error && <ErrorState error={page.error} retry={page.reload} />}
      {allowed && !data && !page.error && <Loading what="Loading async jobs" />}
      {data?.total_count === 0 && (
        <Empty title={status ? `No ${status} job` : "No async job yet"}>
          <p>
            Submit one with <code>POST /v1/async/chat/completions</code> (the same body as <code>/v1/chat/completions</code>); add the header <code>x-gw-async-webhook: &lt;endpoint name&gt;</code> to be told when it
            finishes. Results are kept for an hour unless <code>x-gw-async-job-result-ttl</code> says otherwise.
          </p>
        </Empty>
      )}
      {!!data?.jobs.length && (
        <div class="table-wrap">
          <table aria-label="Async jobs">
            <TableHead columns={["Submitted", "Type", "Status", "Result", "Webhook", "Kept until"]} />
            <tbody>
              {data.jobs.map((job) => (
                <JobRow key={job.id} job={job} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {data && data.total_count > PAGE_SIZE && (
        <nav class="pager" aria-label="Async job pages">
          <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}>
            Newer jobs
          </button>
          <span class="muted">
            {offset + 1}–{offset + data.count} of {data.total_count}
          </span>
          <button type="button" disabled={offset + data.count >= data.total_count} onClick={() => setOffset(offset + PAGE_SIZE)}>
            Older jobs
          </button>
        </nav>
      )}
    </section>
  );
}
