/** A Cohere v2 client over plain HTTP, as Cohere's docs show it with curl: JSON in, JSON or SSE out. */
import { EventSourceParserStream } from "eventsource-parser/stream";
import type { CohereStreamEvent } from "../../src/inference/formats/cohere/wire";

export function postCohere(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer client-side-token", ...headers }, body: JSON.stringify(body) });
}

export interface ReceivedEvent {
  /** The SSE `event:` name. */
  name: string | undefined;
  event: CohereStreamEvent;
}

/** Reads a Cohere v2 stream to its end; `data: [DONE]` closes it and carries no event. */
export async function readCohereStream(response: Response): Promise<ReceivedEvent[]> {
  const messages = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  const received: ReceivedEvent[] = [];
  for await (const message of messages) {
    if (message.data !== "[DONE]") received.push({ name: message.event, event: JSON.parse(message.data) as CohereStreamEvent });
  }
  return received;
}

export const eventTypes = (events: ReceivedEvent[]) => events.map((received) => received.event.type);

export const streamedText = (events: ReceivedEvent[]) =>
  events.map(({ event }) => (event.type === "content-delta" ? (event.delta.message.content.text ?? "") : "")).join("");

export function messageEnd(events: ReceivedEvent[]) {
  const last = events.at(-1)?.event;
  if (last?.type !== "message-end") throw new Error(`stream ended with ${last?.type} instead of message-end`);
  return last.delta;
}

/** The tool calls a stream assembled: start events open them, delta events append arguments. */
export function streamedToolCalls(events: ReceivedEvent[]) {
  const calls: Array<{ id: string; name: string; arguments: string }> = [];
  for (const { event } of events) {
    if (event.type === "tool-call-start") calls[event.index] = { id: event.delta.message.tool_calls.id, name: event.delta.message.tool_calls.function.name, arguments: event.delta.message.tool_calls.function.arguments };
    if (event.type === "tool-call-delta") calls[event.index]!.arguments += event.delta.message.tool_calls.function.arguments;
  }
  return calls;
}
