import { EventSourceParserStream } from "eventsource-parser/stream";
import { ApiError } from "./client";
import type { GatewayErrorBody, WarpChatEvents, WarpChatInput } from "./types";

export type WarpChatEvent = { [Name in keyof WarpChatEvents]: { name: Name; data: WarpChatEvents[Name] } }[keyof WarpChatEvents];

/** POST /api/warp/chat: the answer as it streams, one event at a time. */
export async function* askWarp(input: WarpChatInput, signal: AbortSignal): AsyncGenerator<WarpChatEvent> {
  const response = await fetch("/api/warp/chat", { method: "POST", headers: { "content-type": "application/json", accept: "text/event-stream" }, body: JSON.stringify(input), credentials: "same-origin", signal });
  if (!response.ok || !response.body) {
    const body = (await response.json().catch(() => undefined)) as GatewayErrorBody | undefined;
    throw new ApiError(response.status, body?.error?.message ?? `${response.status} ${response.statusText}`, body?.error?.param, body?.extra_fields?.error_type);
  }
  const events = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  for await (const event of events as unknown as AsyncIterable<{ event?: string; data: string }>) {
    yield { name: event.event ?? "message", data: JSON.parse(event.data) } as WarpChatEvent;
  }
}
