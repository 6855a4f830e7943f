import { createWebSocketInspector } from "@statelyai/inspect";
import { redactContext } from "./context-redaction";

/**
 * Stately's WebSocket inspector, reporting every actor to `url` (its inspection protocol), with
 * contexts redacted as the API redacts them and events reduced to their type (an attempt's
 * output, a job's response); undefined when no url is set, so nothing is paid.
 */
export function stately(url: string | undefined) {
  if (!url) return undefined;
  return createWebSocketInspector({
    url,
    sanitizeContext: (context) => redactContext(undefined, context) as Record<string, unknown>,
    sanitizeEvent: (event) => ({ type: event.type }),
  });
}
