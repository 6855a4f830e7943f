import { createWebSocketInspector, type StatelyInspectionEvent } from "@statelyai/inspect";
import { REDACTED, redactContext } from "./context-redaction";

/**
 * A snapshot's output and error are what an actor produced: a job's reply, the prompt an attempt
 * sent, an upstream error's body. The actors API shows neither; the inspector gets them replaced,
 * and an invoked actor's input redacted as a context is (a sealed request).
 */
function withoutResults(event: StatelyInspectionEvent): StatelyInspectionEvent {
  if (!("snapshot" in event) || !event.snapshot || typeof event.snapshot !== "object") return event;
  const snapshot = event.snapshot as Record<string, unknown>;
  if (snapshot.output === undefined && snapshot.error === undefined && snapshot.input === undefined) return event;
  const replaced = { ...snapshot };
  if (replaced.output !== undefined) replaced.output = REDACTED;
  if (replaced.error !== undefined) replaced.error = REDACTED;
  if (replaced.input !== undefined) replaced.input = redactContext(undefined, replaced.input);
  return { ...event, snapshot: replaced } as StatelyInspectionEvent;
}

/**
 * Stately's WebSocket inspector, reporting every actor to `url` (its inspection protocol), with
 * contexts redacted as the API redacts them, events reduced to their type (an attempt's output, a
 * job's response) and snapshots' outputs and errors replaced; undefined when no url is set, so
 * nothing is paid.
 */
export function stately(url: string | undefined) {
  if (!url) return undefined;
  return createWebSocketInspector({
    url,
    sanitizeContext: (context) => redactContext(undefined, context) as Record<string, unknown>,
    sanitizeEvent: (event) => ({ type: event.type }),
    serialize: withoutResults,
  });
}
