import { useState } from "preact/hooks";
import { formatCount, formatLatency, formatLoggedCost } from "../../lib/format";
import { LogDetailPanel } from "../log-detail";
import { CodeView } from "./code-view";
import type { CodeTarget } from "./code";
import type { Answer } from "./run";
import type { ChatBody } from "./types";

/** The log row's figures, once written: what the logs and analytics count for this run. */
function Figures({ answer }: { answer: Answer }) {
  const log = answer.log;
  if (!log) return answer.done ? null : <p class="muted">{answer.text || answer.error ? "Reading its log…" : "Waiting for the first token…"}</p>;
  const rows: Array<[string, string]> = [
    ["Latency", formatLatency(log.latency)],
    ["Time to first token", formatLatency(log.time_to_first_token)],
    ["Input tokens", formatCount(log.input_tokens)],
    ["Output tokens", formatCount(log.output_tokens)],
    ["Cost", formatLoggedCost(log.cost)],
  ];
  return (
    <table class="run-figures" aria-label={`Figures of ${log.provider}/${log.model}`}>
      <tbody>
        {rows.map(([label, value]) => (
          <tr key={label}>
            <th scope="row">{label}</th>
            <td class="number">{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** One model's answer: the text as it streams, its tool calls, then its figures, code and log. */
export function AnswerCard({ body, answer, target }: { body: ChatBody; answer: Answer; target: CodeTarget }) {
  const [showing, setShowing] = useState<"code" | "log">();
  return (
    <section class="card answer" aria-label={`Answer from ${body.model}`} aria-busy={!answer.done}>
      <h2>{body.model}</h2>
      <div class="answer-text" aria-label="Answer text">
        {answer.text}
      </div>
      {answer.toolCalls.length > 0 && (
        <ul class="answer-tools" aria-label="Tool calls">
          {answer.toolCalls.map((call, index) => (
            <li key={index}>
              <code>
                {call.name}({call.arguments})
              </code>
            </li>
          ))}
        </ul>
      )}
      {answer.error && (
        <p class="field-error" role="alert">
          {answer.error}
        </p>
      )}
      <Figures answer={answer} />
      <div class="actions">
        <button type="button" onClick={() => setShowing("code")}>
          View as code
        </button>
        {answer.log && (
          <button type="button" onClick={() => setShowing("log")}>
            Open its log
          </button>
        )}
      </div>
      {showing === "code" && <CodeView body={body} target={target} onClose={() => setShowing(undefined)} />}
      {showing === "log" && answer.log && <LogDetailPanel id={answer.log.id} onClose={() => setShowing(undefined)} />}
    </section>
  );
}
