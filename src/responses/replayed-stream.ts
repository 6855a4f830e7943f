import { encodeSSE } from "../http/sse";

type Body = Record<string, unknown>;

/** How often a response still being written in the background is looked at again. */
const POLL_MS = 250;

const UNFINISHED = new Set(["queued", "in_progress"]);

type Part = { type?: unknown; text?: unknown };

/** The events that write one output item, in the order a live stream sends them. */
function itemEvents(item: Body, outputIndex: number): Body[] {
  const at = { item_id: item.id, output_index: outputIndex };
  const events: Body[] = [];
  if (item.type === "message") {
    events.push({ type: "response.output_item.added", output_index: outputIndex, item: { ...item, status: "in_progress", content: [] } });
    for (const [contentIndex, part] of ((item.content as Part[] | undefined) ?? []).entries()) {
      const text = typeof part.text === "string" ? part.text : "";
      const isText = part.type === "output_text";
      events.push({ type: "response.content_part.added", ...at, content_index: contentIndex, part: isText ? { ...part, text: "" } : part });
      if (isText) {
        events.push({ type: "response.output_text.delta", ...at, content_index: contentIndex, delta: text });
        events.push({ type: "response.output_text.done", ...at, content_index: contentIndex, text });
      }
      events.push({ type: "response.content_part.done", ...at, content_index: contentIndex, part });
    }
  } else if (item.type === "function_call") {
    const args = typeof item.arguments === "string" ? item.arguments : "";
    events.push({ type: "response.output_item.added", output_index: outputIndex, item: { ...item, status: "in_progress", arguments: "" } });
    events.push({ type: "response.function_call_arguments.delta", ...at, delta: args });
    events.push({ type: "response.function_call_arguments.done", ...at, arguments: args });
  } else if (item.type === "reasoning") {
    events.push({ type: "response.output_item.added", output_index: outputIndex, item: { ...item, summary: [] } });
    for (const [summaryIndex, part] of ((item.summary as Part[] | undefined) ?? []).entries()) {
      const text = typeof part.text === "string" ? part.text : "";
      events.push({ type: "response.reasoning_summary_part.added", ...at, summary_index: summaryIndex, part: { ...part, text: "" } });
      events.push({ type: "response.reasoning_summary_text.delta", ...at, summary_index: summaryIndex, delta: text });
      events.push({ type: "response.reasoning_summary_text.done", ...at, summary_index: summaryIndex, text });
      events.push({ type: "response.reasoning_summary_part.done", ...at, summary_index: summaryIndex, part });
    }
  } else {
    events.push({ type: "response.output_item.added", output_index: outputIndex, item });
  }
  events.push({ type: "response.output_item.done", output_index: outputIndex, item });
  return events;
}

/** The events after the response has started: each output item written, then how it ended. */
function endingEvents(response: Body): Body[] {
  const output = Array.isArray(response.output) ? (response.output as Body[]) : [];
  const status = typeof response.status === "string" ? response.status : "completed";
  return [...output.flatMap(itemEvents), { type: `response.${status}`, response }];
}

const started = (response: Body, status: string): Body => ({ ...response, status, output: [], usage: null });

/**
 * A response the gateway keeps, streamed as the Responses API streams one, for a client that asks
 * `GET /v1/responses/{id}?stream=true` (the SDK's `responses.stream({ response_id })`): its start,
 * then, once it is no longer queued or in progress (a background run is read again with `next`
 * every 250 ms meanwhile), each output item and how it ended. Every event carries its
 * `sequence_number`; those up to `startingAfter` are left out, so a client resumes where it was cut.
 */
export function replayedStream(first: Body, next: () => Promise<Body>, startingAfter: number | undefined, signal: AbortSignal): ReadableStream<Uint8Array> {
  let sequence = 0;
  const send = (controller: ReadableStreamDefaultController<Uint8Array>, event: Body) => {
    const numbered = { ...event, sequence_number: sequence++ };
    if (startingAfter === undefined || numbered.sequence_number > startingAfter) controller.enqueue(encodeSSE(numbered, String(event.type)));
  };
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      let response = first;
      // The same start whatever the response's state at this read, so sequence numbers agree between reads.
      const background = response.background === true;
      send(controller, { type: "response.created", response: started(response, background ? "queued" : "in_progress") });
      if (background) send(controller, { type: "response.queued", response: started(response, "queued") });
      send(controller, { type: "response.in_progress", response: started(response, "in_progress") });
      while (UNFINISHED.has(String(response.status)) && !signal.aborted) {
        await Bun.sleep(POLL_MS);
        response = await next();
      }
      if (signal.aborted) return controller.close();
      for (const event of endingEvents(response)) send(controller, event);
      controller.close();
    },
  });
}
