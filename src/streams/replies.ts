import { Type as t } from "@sinclair/typebox";

/** What DELETE /v1/streams/{id} answers. */
export const ResumableStream = t.Object(
  {
    id: t.String(),
    object: t.Literal("stream"),
    status: t.Union([t.Literal("upstream_open"), t.Literal("completed"), t.Literal("failed"), t.Literal("cancelled")]),
    request_id: t.String({ description: "The request whose reply it keeps: its log row." }),
    events: t.Integer({ description: "Events stored." }),
    bytes: t.Integer({ description: "Bytes of the events stored." }),
    resumes: t.Integer({ description: "How many times a reader resumed it." }),
    created_at: t.Integer({ description: "Unix seconds." }),
    ended_at: t.Optional(t.Integer({ description: "Unix seconds." })),
    error: t.Optional(t.String({ description: "Why it did not complete." })),
  },
  { description: "A resumable stream as its virtual key sees it." },
);
