import { Type as t } from "@sinclair/typebox";
import { PageFields, Timestamp } from "../http/replies";

/** What GET /api/async-jobs answers (job-view.ts, job-list.ts). */

export const AsyncJob = t.Object(
  {
    id: t.String(),
    status: t.Union([t.Literal("pending"), t.Literal("processing"), t.Literal("completed"), t.Literal("failed"), t.Literal("expired")], { description: "A job whose result expired is not listed." }),
    request_type: t.String({ description: "What the job runs, e.g. `chat.completion`." }),
    created_at: Timestamp,
    expires_at: Timestamp,
    started_at: t.Optional(Timestamp),
    completed_at: t.Optional(Timestamp),
    status_code: t.Optional(t.Integer({ description: "The status the request answered, once finished." })),
    result: t.Optional(t.Unknown({ description: "Completed: the reply's JSON body, or `{content_type, data_base64}` for another body." })),
    error: t.Optional(t.Unknown({ description: "Failed: the error body the request answered." })),
    route: t.String({ description: "The async path it was submitted on, e.g. `chat/completions`." }),
    webhook: t.Optional(t.String({ description: "The webhook endpoint named at submission." })),
  },
  { title: "AsyncJob", description: "An async job as its owner polls it, plus where it was submitted." },
);

export const AsyncJobPage = t.Object({ jobs: t.Array(AsyncJob), ...PageFields }, { title: "AsyncJobPage" });

const { route: _route, webhook: _webhook, ...polledFields } = AsyncJob.properties;
/** What submitting and polling a job answer: 202 while it is pending or processing, 200 once it has a result or an error. */
export const AsyncJobStatus = t.Object(polledFields, { title: "AsyncJobStatus", description: "An async job as its owner polls it; the `x-gw-async-id` header names it too." });
