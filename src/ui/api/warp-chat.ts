import { EventSourceParserStream } from "eventsource-parser/stream";
import { errorOf } from "./client";
import type { WarpChatEvents, WarpChatInput } from "./types";

export type WarpChatEvent = { [Name in keyof WarpChatEvents]: { name: Name; data: WarpChatEvents[Name] } }[keyof WarpChatEvents];

/** POST /api/warp/chat: the answer as it streams, one event at a time. */
export async function* askWarp(input: WarpChatInput, signal: AbortSignal): AsyncGenerator<WarpChatEvent> {
  const response = await fetch("/api/warp/chat", { method: "POST", headers: { "content-type": "application/json", accept: "text/event-stream" }, body: JSON.stringify(input), credentials: "same-origin", signal });
  if (!response.ok || !response.body) throw errorOf(response, await response.json().catch(() => undefined));
  const events = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  for await (const event of events as unknown as AsyncIterable<{ event?: string; data: string }>) {
    yield { name: event.event ?? "message", data: JSON.parse(event.data) } as WarpChatEvent;
  }
}
