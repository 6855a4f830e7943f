import { virtualKeys } from "../../api/endpoints";
import type { SessionBudget, VirtualKey } from "../../api/types";
import { Panel } from "../../components/panel";
import { Empty, ErrorState, Loading } from "../../components/states";
import { TableHead } from "../../components/table-head";
import { formatCost, formatCount, formatTime } from "../../lib/format";
import { useResource } from "../../lib/use-resource";

/** A key's session budgets in a few words: "$2.50, 400,000 tokens per session". */
export function sessionBudgetSummary(budget: SessionBudget): string {
  const parts = [budget.max_cost !== undefined ? formatCost(budget.max_cost) : undefined, budget.max_tokens !== undefined ? `${formatCount(budget.max_tokens)} tokens` : undefined];
  return `${parts.filter(Boolean).join(", ") || "no limit"} per session`;
}

const LIMIT_NAMES = { max_cost: "cost", max_tokens: "tokens" } as const;

/** Read-only: what each session of the key spent against its session budgets, on the node that answered. */
export function KeySessions({ keyRow, onClose }: { keyRow: VirtualKey; onClose(): void }) {
  const sessions = useResource(() => virtualKeys.sessions(keyRow.id), [keyRow.id]);
  return (
    <Panel title={`Sessions of ${keyRow.name}`} onClose={onClose} wide>
      {keyRow.session_budgets && <p class="muted small">{sessionBudgetSummary(keyRow.session_budgets)}. A session past it is refused with 402; its stream is ended at the chunk that crosses it.</p>}
      {sessions.error && <ErrorState error={sessions.error} retry={sessions.reload} />}
      {!sessions.data && !sessions.error && <Loading />}
      {sessions.data?.length === 0 && (
        <Empty title="No session yet">
          <p>Requests of this key are counted per session (x-gw-session-id, an agent's session header, or the conversation's opening) once they are answered.</p>
        </Empty>
      )}
      {!!sessions.data?.length && (
        <div class="table-wrap">
          <table aria-label="Sessions">
            <TableHead columns={["Session", "Requests", "Tokens", "Cost", "Last request", "State"]} />
            <tbody>
              {sessions.data.map((session) => (
                <tr key={session.session_id}>
                  <td>
                    <code>{session.session_id}</code>
                  </td>
                  <td>{formatCount(session.requests)}</td>
                  <td>{formatCount(session.tokens)}</td>
                  <td>{formatCost(session.cost)}</td>
                  <td>{formatTime(session.last_request_at)}</td>
                  <td>{session.exceeded ? <span class="badge badge-bad">over its {LIMIT_NAMES[session.exceeded]} budget</span> : <span class="badge badge-ok">within budget</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Panel>
  );
}
