import { logs } from "../api/endpoints";
import type { LogDetail } from "../api/types";
import { Panel } from "../components/panel";
import { ErrorState, Loading } from "../components/states";
import { StatusBadge } from "../components/widgets";
import { formatCost, formatCount, formatLatency, formatTime } from "../lib/format";
import { followLink } from "../lib/router";
import { useResource } from "../lib/use-resource";
import { conversationPath } from "./conversation-path";
import { TableHead } from "../components/table-head";
import { type LogChoices, labelOf } from "./log-choices";

const pretty = (value: unknown) => (typeof value === "string" ? prettyText(value) : JSON.stringify(value, null, 2));

function prettyText(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** The conversation a request belongs to, with the way to its thread. */
function Conversation({ id }: { id: string }) {
  const to = conversationPath(id);
  return (
    <section aria-label="Conversation">
      <h3>Conversation</h3>
      <p>
        This request is a turn of conversation <code>{id}</code>.{" "}
        <a href={to} onClick={(event) => followLink(event, to)}>
          Show the conversation as a thread
        </a>
      </p>
    </section>
  );
}

function Facts({ log, choices }: { log: LogDetail; choices?: LogChoices }) {
  const facts: Array<[string, string]> = [
    ["Time", formatTime(log.timestamp)],
    ["Model", `${log.provider}/${log.model}${log.alias ? ` (asked as ${log.alias})` : ""}`],
    ["Request type", log.object],
    ["Status code", String(log.status_code ?? "–")],
    ["Latency", formatLatency(log.latency)],
    ["Time to first token", formatLatency(log.time_to_first_token)],
    ["Provider key", labelOf(choices?.providerKeys, log.selected_key_id) ?? "–"],
    ["Virtual key", log.virtual_key_name ?? log.virtual_key_id ?? "–"],
    ["Routing rule", log.routing_rule_name ?? "–"],
    ["Stop reason", log.stop_reason ?? "–"],
    ["Streamed", log.stream ? "yes" : "no"],
    ["Cache", log.cache_hit_type ? `hit (${log.cache_hit_type})` : "miss"],
    ...(log.internal_caller ? [["Made by", `the gateway itself (${log.internal_caller})`] as [string, string]] : []),
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

/** Tokens by kind and what they cost; cached tokens are part of the input, reasoning tokens of the output. */
function CostBreakdown({ log }: { log: LogDetail }) {
  const rows: Array<[string, string]> = [
    ["Input tokens", formatCount(log.input_tokens)],
    ["of which cached", formatCount(log.cached_tokens)],
    ["Output tokens", formatCount(log.output_tokens)],
    ["of which reasoning", formatCount(log.reasoning_tokens)],
    ["Total tokens", formatCount(log.total_tokens)],
    ["Cost", log.cost === null ? "unknown (no price for this model)" : formatCost(log.cost)],
  ];
  return (
    <section aria-label="Tokens and cost">
      <h3>Tokens and cost</h3>
      <dl class="facts">
        {rows.map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

const STAGES = { input: "request", output: "reply" };
const ACTIONS = { block: "blocked", redact: "redacted", log: "logged only" };

function Guardrails({ log }: { log: LogDetail }) {
  return (
    <section aria-label="Guardrails">
      <h3>Guardrails</h3>
      {log.guardrails.length === 0 ? (
        <p class="muted">No guardrail found anything in this request.</p>
      ) : (
        <table aria-label="Guardrail verdicts">
          <TableHead columns={["Guardrail", "Check", "Found in", "Action", { label: "Matches", number: true }]} />
          <tbody>
            {log.guardrails.map((verdict, index) => (
              <tr key={index}>
                <td>{verdict.guardrail}</td>
                <td>{verdict.check}</td>
                <td>{STAGES[verdict.stage]}</td>
                <td>{ACTIONS[verdict.action]}</td>
                <td class="number">{verdict.matches}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Attempts({ log, choices }: { log: LogDetail; choices?: LogChoices }) {
  if (log.attempts.length === 0) return null;
  return (
    <section aria-label="Attempts and fallbacks">
      <h3>Attempts and fallbacks</h3>
      <table aria-label="Attempts">
        <TableHead columns={["#", "Target", "Key", "Status", "Error"]} />
        <tbody>
          {log.attempts.map((attempt, index) => (
            <tr key={index}>
              <td>{index + 1}</td>
              <td>
                {attempt.provider}/{attempt.model}
                {attempt.is_fallback && <span class="badge badge-neutral">fallback</span>}
              </td>
              <td>{labelOf(choices?.providerKeys, attempt.key) ?? "–"}</td>
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
export function LogDetailPanel({ id, choices, onClose }: { id: string; choices?: LogChoices; onClose(): void }) {
  const detail = useResource(() => logs.get(id), [id]);
  const log = detail.data as (LogDetail & { conversation_id?: string | null }) | undefined;
  return (
    <Panel title="Request detail" onClose={onClose} wide>
      {detail.error && <ErrorState error={detail.error} retry={detail.reload} />}
      {!log && !detail.error && <Loading what="Loading the request" />}
      {log && (
        <>
          <p>
            <StatusBadge status={log.status} /> <code>{log.id}</code>
          </p>
          <Facts log={log} choices={choices} />
          {log.conversation_id && <Conversation id={log.conversation_id} />}
          {log.error_message && (
            <section aria-label="Error">
              <h3>Error</h3>
              <pre class="code code-error">
                {log.error_type && `${log.error_type}: `}
                {log.error_message}
              </pre>
            </section>
          )}
          <Attempts log={log} choices={choices} />
          <CostBreakdown log={log} />
          <Guardrails log={log} />
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
