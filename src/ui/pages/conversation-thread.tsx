import { useState } from "preact/hooks";
import { queryString } from "../api/client";
import { logs } from "../api/endpoints";
import type { ConversationThread } from "../api/types";
import { PageHeader } from "../components/layout";
import { ErrorState, Loading } from "../components/states";
import { StatusBadge } from "../components/widgets";
import { formatCost, formatCount, formatLoggedCost, formatPercent, formatTime } from "../lib/format";
import { followLink } from "../lib/router";
import { useResource } from "../lib/use-resource";
import { LogDetailPanel } from "./log-detail";

type Tokens = Pick<ConversationThread["totals"], "input_tokens" | "cached_tokens" | "output_tokens">;
type Turn = ConversationThread["turns"][number];

const cachedShare = (tokens: Tokens) => (tokens.input_tokens > 0 ? tokens.cached_tokens / tokens.input_tokens : null);

function Totals({ thread }: { thread: ConversationThread }) {
  const { totals } = thread;
  const figures: Array<[string, string]> = [
    ["Turns", formatCount(totals.turns)],
    ["Input tokens", formatCount(totals.input_tokens)],
    ["Read from the prompt cache", `${formatCount(totals.cached_tokens)} (${formatPercent(cachedShare(totals))})`],
    ["Output tokens", formatCount(totals.output_tokens)],
    ["Cost", formatCost(totals.cost)],
  ];
  return (
    <div class="figures">
      {figures.map(([label, value]) => (
        <section key={label} class="figure" aria-label={label}>
          <h2>{label}</h2>
          <p class="figure-value">{value}</p>
        </section>
      ))}
    </div>
  );
}

function TurnCard({ turn, number, onOpen }: { turn: Turn; number: number; onOpen(): void }) {
  return (
    <li class="card" aria-label={`Turn ${number}`}>
      <div class="card-header">
        <h3>
          Turn {number} <StatusBadge status={turn.status} />
          {turn.complexity_tier && <span class="badge badge-neutral">{turn.complexity_tier}</span>}
        </h3>
        <span class="muted small">
          {formatTime(turn.timestamp)} · {turn.provider}/{turn.model}
          {turn.selected_key_id && ` · key ${turn.selected_key_id}`}
        </span>
      </div>
      <div class="warp-messages">
        <p class="bubble bubble-user" aria-label="Asked">
          {turn.asked ?? <span class="muted">not logged</span>}
        </p>
        <p class="bubble bubble-assistant" aria-label="Answered">
          {turn.answered ?? <span class="muted">no reply logged</span>}
        </p>
      </div>
      <dl class="facts" aria-label={`Tokens and cost of turn ${number}`}>
        <div>
          <dt>Input tokens</dt>
          <dd>{formatCount(turn.input_tokens)}</dd>
        </div>
        <div>
          <dt>Cache hit tokens</dt>
          <dd>
            {formatCount(turn.cached_tokens)} ({formatPercent(cachedShare(turn))})
          </dd>
        </div>
        <div>
          <dt>Output tokens</dt>
          <dd>{formatCount(turn.output_tokens)}</dd>
        </div>
        <div>
          <dt>Cost</dt>
          <dd>{formatLoggedCost(turn.cost)}</dd>
        </div>
      </dl>
      <div class="row-actions">
        <button type="button" onClick={onOpen}>
          Request detail of turn {number}
        </button>
      </div>
    </li>
  );
}

/** One conversation (the requests sharing a conversation id) as a thread: each turn's question, answer, cache hits and cost. */
export function ConversationPage({ id }: { id: string }) {
  const thread = useResource(() => logs.conversation(id), [id]);
  const [open, setOpen] = useState<string>();
  const inLogs = `/ui/logs${queryString({ conversation_ids: id })}`;
  return (
    <>
      <PageHeader title="Conversation">
        <a href={inLogs} onClick={(event) => followLink(event, inLogs)}>
          Its requests in the logs
        </a>
      </PageHeader>
      <p class="muted">
        <code>{id}</code>
      </p>
      {thread.error && <ErrorState error={thread.error} retry={thread.reload} />}
      {!thread.data && !thread.error && <Loading what="Loading the conversation" />}
      {thread.data && (
        <>
          <Totals thread={thread.data} />
          <ol class="thread" aria-label="Turns">
            {thread.data.turns.map((turn, index) => (
              <TurnCard key={turn.id} turn={turn} number={index + 1} onOpen={() => setOpen(turn.id)} />
            ))}
          </ol>
        </>
      )}
      {open && <LogDetailPanel id={open} onClose={() => setOpen(undefined)} />}
    </>
  );
}
