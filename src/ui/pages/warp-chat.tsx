import { useEffect, useRef, useState } from "preact/hooks";
import { warp } from "../api/endpoints";
import type { WarpMessage } from "../api/types";
import { askWarp } from "../api/warp-chat";
import { useFeedback } from "../components/feedback";
import { Field } from "../components/fields";
import { Panel } from "../components/panel";
import { ErrorState } from "../components/states";
import { formatTime } from "../lib/format";
import { useResource } from "../lib/use-resource";
import { messageOf } from "../lib/use-save";
import { useCan } from "../session";

interface ToolCall {
  id: string;
  name: string;
  arguments: string;
  result?: unknown;
  ok?: boolean;
}

type Entry = { kind: "user"; text: string } | { kind: "assistant"; text: string } | { kind: "tool"; call: ToolCall };

const pretty = (text: unknown) => {
  try {
    return JSON.stringify(typeof text === "string" ? JSON.parse(text) : text, null, 2);
  } catch {
    return String(text);
  }
};

/** A saved chat's messages as the panel shows them: tool results joined to their calls. */
function entriesOf(messages: WarpMessage[]): Entry[] {
  const entries: Entry[] = [];
  const calls = new Map<string, ToolCall>();
  for (const message of messages) {
    if (message.role === "user") entries.push({ kind: "user", text: message.content ?? "" });
    else if (message.role === "tool") {
      const call = message.tool_call_id ? calls.get(message.tool_call_id) : undefined;
      if (call) Object.assign(call, { result: message.content, ok: true });
    } else {
      for (const toolCall of message.tool_calls ?? []) {
        const call = { id: toolCall.id, name: toolCall.function.name, arguments: toolCall.function.arguments };
        calls.set(call.id, call);
        entries.push({ kind: "tool", call });
      }
      if (message.content) entries.push({ kind: "assistant", text: message.content });
    }
  }
  return entries;
}

function ToolCallView({ call }: { call: ToolCall }) {
  return (
    <details class="tool-call">
      <summary>
        Tool call: <code>{call.name}</code> {call.ok === undefined ? <span class="muted">running…</span> : call.ok ? "" : <span class="badge badge-bad">failed</span>}
      </summary>
      <h4>Arguments</h4>
      <pre class="code">{pretty(call.arguments || "{}")}</pre>
      {call.result !== undefined && (
        <>
          <h4>Result</h4>
          <pre class="code">{pretty(call.result)}</pre>
        </>
      )}
    </details>
  );
}

function History({ onOpen, current, refreshKey }: { onOpen(id: string | undefined): void; current?: string; refreshKey: number }) {
  const can = useCan();
  const { toast } = useFeedback();
  const list = useResource(() => (can("Warp:View") ? warp.conversations() : Promise.resolve([])), [refreshKey]);
  const remove = async (id: string) => {
    try {
      await warp.removeConversation(id);
      toast("Conversation deleted");
      if (id === current) onOpen(undefined);
      list.reload();
    } catch (error) {
      toast(messageOf(error), "error");
    }
  };
  if (list.error) return <ErrorState error={list.error} retry={list.reload} />;
  return (
    <nav class="warp-history" aria-label="Conversations">
      <button type="button" onClick={() => onOpen(undefined)}>
        New conversation
      </button>
      <ul>
        {list.data?.map((conversation) => (
          <li key={conversation.id} aria-current={conversation.id === current ? "true" : undefined}>
            <button type="button" class="link" onClick={() => onOpen(conversation.id)}>
              {conversation.title}
            </button>
            <span class="muted small"> {formatTime(conversation.updated_at)}</span>
            {can("Warp:Delete") && (
              <button type="button" class="icon" aria-label={`Delete conversation ${conversation.title}`} onClick={() => remove(conversation.id)}>
                <TrashIcon />
              </button>
            )}
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** Drawn, not an emoji: a system without an emoji font shows an empty box for 🗑. */
const TrashIcon = () => (
  <svg class="icon-svg" viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
    <path d="M6 2h4l1 1h3v1.5H2V3h3zM3.5 6h9l-.7 8.2a1 1 0 0 1-1 .8H5.2a1 1 0 0 1-1-.8z" fill="currentColor" />
  </svg>
);

/** Warp, the dashboard agent: ask about this deployment's traffic; answers stream in, tool calls fold away. */
export function WarpChat({ onClose }: { onClose(): void }) {
  const [conversation, setConversation] = useState<string>();
  const [entries, setEntries] = useState<Entry[]>([]);
  const [question, setQuestion] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error>();
  const [refreshKey, setRefreshKey] = useState(0);
  const stop = useRef<AbortController>(undefined);
  useEffect(() => () => stop.current?.abort(), []);

  const open = async (id: string | undefined) => {
    setConversation(id);
    setError(undefined);
    setEntries(id ? entriesOf(await warp.conversation(id)) : []);
  };

  const send = async (event: Event) => {
    event.preventDefault();
    const message = question.trim();
    if (!message) return;
    setQuestion("");
    setBusy(true);
    setError(undefined);
    const shown: Entry[] = [...entries, { kind: "user", text: message }];
    setEntries(shown);
    const calls = new Map<string, ToolCall>();
    let answer: { kind: "assistant"; text: string } | undefined;
    stop.current = new AbortController();
    try {
      for await (const streamed of askWarp({ message, conversation_id: conversation }, stop.current.signal)) {
        if (streamed.name === "start") setConversation(streamed.data.conversation_id);
        else if (streamed.name === "delta") {
          if (!answer) shown.push((answer = { kind: "assistant", text: "" }));
          answer.text += streamed.data.content;
        } else if (streamed.name === "tool_call_start") {
          const call = { id: streamed.data.id, name: streamed.data.name, arguments: streamed.data.arguments };
          calls.set(call.id, call);
          shown.push({ kind: "tool", call });
          answer = undefined;
        } else if (streamed.name === "tool_call_end") Object.assign(calls.get(streamed.data.id) ?? {}, { ok: streamed.data.ok, result: streamed.data.result ?? streamed.data.error });
        else if (streamed.name === "error") setError(new Error(streamed.data.error?.message ?? "the answer failed"));
        setEntries([...shown]);
      }
      setRefreshKey((key) => key + 1);
    } catch (failure) {
      if (!stop.current.signal.aborted) setError(failure instanceof Error ? failure : new Error(messageOf(failure)));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Panel title="Warp" onClose={onClose} wide>
      <div class="warp">
        <History onOpen={open} current={conversation} refreshKey={refreshKey} />
        <div class="warp-chat">
          <div class="warp-messages" role="log" aria-label="Warp conversation" aria-live="polite" aria-busy={busy}>
            {entries.length === 0 && <p class="muted">Ask about this gateway's traffic: errors today, the most expensive model this week, a virtual key's usage…</p>}
            {entries.map((entry, index) =>
              entry.kind === "tool" ? (
                <ToolCallView key={index} call={entry.call} />
              ) : (
                <div key={index} class={`bubble bubble-${entry.kind}`} aria-label={entry.kind === "user" ? "You" : "Warp"}>
                  {entry.text}
                </div>
              ),
            )}
            {error && <ErrorState error={error} />}
          </div>
          <form class="warp-ask" onSubmit={send}>
            <Field label="Ask Warp">{(ids) => <textarea {...ids} rows={2} value={question} onInput={(event) => setQuestion(event.currentTarget.value)} onKeyDown={(event) => event.key === "Enter" && !event.shiftKey && send(event)} />}</Field>
            <div class="actions">
              {busy && (
                <button type="button" onClick={() => stop.current?.abort()}>
                  Stop
                </button>
              )}
              <button type="submit" class="primary" disabled={busy || !question.trim()}>
                Send
              </button>
            </div>
          </form>
        </div>
      </div>
    </Panel>
  );
}
