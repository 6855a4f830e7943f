import { Elysia, t } from "elysia";
import type { ResumableStreamRow } from "../db/schema";
import { badRequest, notFound } from "../http/errors";
import { replies } from "../http/replies";
import type { ResumableStreams } from "./resumable-streams";
import { ResumableStream } from "./replies";

const StreamParams = t.Object({ stream_id: t.String({ minLength: 1, description: "The id the first response named in `x-gw-stream-id`." }) });
const ResumeQuery = t.Object({
  after: t.Optional(t.Numeric({ minimum: 0, multipleOf: 1, maximum: Number.MAX_SAFE_INTEGER, description: "Replay the events after this one (its `id:`); without it, `Last-Event-ID`, else from the first." })),
});

const streamNotFound = (id: string) => notFound(`stream '${id}' does not exist, has expired, or belongs to another virtual key`, "caller_stream_not_found");

/** Where to resume: `after`, else the `Last-Event-ID` an EventSource sends back, else the start. */
function resumeFrom(after: number | undefined, headers: Headers): number {
  if (after !== undefined) return after;
  const lastEventId = headers.get("last-event-id");
  if (lastEventId === null || lastEventId === "") return 0;
  const seq = Number(lastEventId);
  if (!Number.isSafeInteger(seq) || seq < 0) throw badRequest(`Last-Event-ID must be the id of an event of the stream, not '${lastEventId}'`, "Last-Event-ID");
  return seq;
}

export const streamView = (row: ResumableStreamRow) => ({
  id: row.id,
  object: "stream" as const,
  status: row.state as "upstream_open" | "completed" | "failed" | "cancelled",
  request_id: row.requestId,
  events: row.events,
  bytes: row.bytes,
  resumes: row.resumes,
  created_at: Math.floor(row.createdAt.getTime() / 1000),
  ...(row.endedAt ? { ended_at: Math.floor(row.endedAt.getTime() / 1000) } : {}),
  ...(row.error ? { error: row.error } : {}),
});

/** GET /v1/streams/{id} (replay, then follow) and DELETE /v1/streams/{id} (cancel the upstream call), for the virtual key that started it. */
export function streamRoutes(streams: ResumableStreams, checkCaller: (headers: Headers) => void) {
  const found = async (id: string, headers: Headers) => {
    checkCaller(headers);
    const row = await streams.find(id, headers);
    if (!row) throw streamNotFound(id);
    return row;
  };
  return new Elysia({ name: "resumable-streams", prefix: "/v1/streams" })
    .get(
      "/:stream_id",
      async ({ params, query, request }) => {
        const row = await found(params.stream_id, request.headers);
        return streams.reader(row, resumeFrom(query.after, request.headers));
      },
      {
        params: StreamParams,
        query: ResumeQuery,
        detail: {
          summary: "Resume a stream",
          description: "Replays the stream's events after `after` (or `Last-Event-ID`) in the format it was sent in, each with its `id:`, then follows it live until it ends.",
          responses: { 200: { description: "The events, as server-sent events.", content: { "text/event-stream": { schema: { type: "string" } } } }, 404: { $ref: "#/components/responses/Error404" } },
        },
      },
    )
    .delete(
      "/:stream_id",
      async ({ params, request }) => streamView(await streams.cancel(await found(params.stream_id, request.headers))),
      { params: StreamParams, ...replies({ 200: ResumableStream }, { summary: "Cancel a stream", description: "Cancels the upstream call of a stream still open (on whichever node holds it); readers get the events stored so far, then an error event. An ended stream is answered as it stands." }) },
    );
}
