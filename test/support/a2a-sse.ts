import { parseSSE } from "../../src/http/sse";

export interface ReceivedEvent {
  /** `error` for failures delivered inside the stream, undefined for ordinary events. */
  event?: string;
  data: Record<string, unknown>;
}

/** Reads a `text/event-stream` response one event at a time, as a caller would. */
export async function* sseEvents(response: Response): AsyncGenerator<ReceivedEvent> {
  const reader = response.body!.pipeThrough(parseSSE()).getReader();
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) return;
      yield { event: value.event, data: JSON.parse(value.data) as Record<string, unknown> };
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** The state of a REST stream event in a few words: `task:working`, `status:completed`, `artifact`. */
export function stateOf({ data }: ReceivedEvent): string {
  const short = (state: unknown) => String(state).replace("TASK_STATE_", "").toLowerCase();
  if ("task" in data) return `task:${short((data.task as { status: { state: string } }).status.state)}`;
  if ("statusUpdate" in data) return `status:${short((data.statusUpdate as { status: { state: string } }).status.state)}`;
  if ("artifactUpdate" in data) return "artifact";
  return Object.keys(data).join(",");
}

/** A user message in the HTTP+JSON binding's JSON. */
export const restMessage = (text: string) => ({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] } });
