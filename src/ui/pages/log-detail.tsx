import { logs } from "../api/endpoints";
import type { LogDetail } from "../api/types";
import { Panel } from "../components/panel";
import { ErrorState, Loading } from "../components/states";
import { StatusBadge } from "../components/widgets";
import { formatCount, formatLatency, formatLoggedCost, formatTime } from "../lib/format";
import { useResource } from "../lib/use-resource";
import { TableHead } from "../components/table-head";

const pretty = (value: unknown) => (typeof value === "string" ? prettyText(value) : JSON.stringify(value, null, 2));

function prettyText(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function Facts({ log }: { log: LogDetail }) {
  const facts: Array<[string, string]> = [
    ["Time", formatTime(log.timestamp)],
    ["Model", `${log.provider}/${log.model}${log.alias ? ` (asked as ${log.alias})` : ""}`],
    ["Request type", log.object],
    ["Status code", String(log.status_code ?? "–")],
    ["Latency", formatLatency(log.latency)],
    ["Time to first token", formatLatency(log.time_to_first_token)],
    ["Tokens in / out", `${formatCount(log.input_tokens)} / ${formatCount(log.output_tokens)}`],
    ["Cost", formatLoggedCost(log.cost)],
    ["Provider key", log.selected_key_id ?? "–"],
    ["Virtual key", log.virtual_key_name ?? log.virtual_key_id ?? "–"],
    ["Routing rule", log.routing_rule_name ?? "–"],
    ["Stop reason", log.stop_reason ?? "–"],
    ["Streamed", log.stream ? "yes" : "no"],
    ["Cache", log.cache_hit_type ?? "–"],
  ];
  return (
    <dl class="facts">
      {facts.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function Attempts({ log }: { log: LogDetail }) {
  if (log.attempts.length <= 1) return null;
  return (
    <section aria-label="Retries and fallbacks">
      <h3>Retries and fallbacks</h3>
      <table>
        <TableHead columns={["#", "Target", "Key", "Status", "Error"]} />
        <tbody>
          {log.attempts.map((attempt, index) => (
            <tr key={index}>
              <td>{index + 1}</td>
              <td>
                {attempt.provider}/{attempt.model}
                {attempt.is_fallback && <span class="badge badge-neutral">fallback</span>}
              </td>
              <td>{attempt.key ?? "–"}</td>
              <td>{attempt.status ?? "–"}</td>
              <td>{attempt.error_type ?? ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** One request: what was asked, what came back, what it cost, and how it was routed. */
export function LogDetailPanel({ id, onClose }: { id: string; onClose(): void }) {
  const detail = useResource(() => logs.get(id), [id]);
  const log = detail.data;
  return (
    <Panel title="Request detail" onClose={onClose} wide>
      {detail.error && <ErrorState error={detail.error} retry={detail.reload} />}
      {!log && !detail.error && <Loading what="Loading the request" />}
      {log && (
        <>
          <p>
            <StatusBadge status={log.status} /> <code>{log.id}</code>
          </p>
          <Facts log={log} />
          {log.error_message && (
            <section aria-label="Error">
              <h3>Error</h3>
              <pre class="code code-error">
                {log.error_type && `${log.error_type}: `}
                {log.error_message}
              </pre>
            </section>
          )}
          <Attempts log={log} />
          <section aria-label="Request">
            <h3>Request</h3>
            {log.request_content == null ? <p class="muted">Not logged (content logging is off, or the body was too large).</p> : <pre class="code">{pretty(log.request_content)}</pre>}
          </section>
          <section aria-label="Response">
            <h3>Response</h3>
            {log.response_content ? <pre class="code">{pretty(log.response_content)}</pre> : <p class="muted">No response content was logged.</p>}
          </section>
        </>
      )}
    </Panel>
  );
}
