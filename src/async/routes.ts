import { Elysia, t } from "elysia";
import { notFound } from "../http/errors";
import { replies } from "../http/replies";
import { AsyncJobStatus } from "./replies";
import { ASYNC_KINDS } from "./job-kinds";
import { jobView } from "./job-view";
import type { FoundJob } from "../../actors/async-job";
import type { AsyncJobs } from "./jobs";
import { ownerOf } from "./ownership";
import { readSubmission } from "./submission";

export const jobNotFound = (id: string) => notFound(`async job '${id}' does not exist, has expired, or belongs to another virtual key`, "caller_async_job_not_found");

const JobParams = t.Object({ job_id: t.String({ minLength: 1 }) });

/** 202 while the job is pending or processing, 200 once it has a result or an error. */
const pollStatus = (found: FoundJob) => (found.status === "completed" || found.status === "failed" ? 200 : 202);

export function pollResponse(found: FoundJob): Response {
  return Response.json(jobView(found.context, found.status), { status: pollStatus(found), headers: { "x-gw-async-id": found.context.id } });
}

/** The poll's answer as a route returns it, so its body is checked against AsyncJobStatus. */
function pollReply(found: FoundJob, set: { status?: number | string; headers: Record<string, string | number> }) {
  set.status = pollStatus(found);
  set.headers["x-gw-async-id"] = found.context.id;
  return jobView(found.context, found.status);
}

const pollReplies = { 200: AsyncJobStatus, 202: AsyncJobStatus };

/** /v1/async/{kind}: submit (202 with the job) and poll (GET .../{job_id}). */
export function asyncRoutes(jobs: AsyncJobs, { hasWebhook, checkCaller }: { hasWebhook: (name: string) => boolean; checkCaller: (headers: Headers) => void }) {
  const app = new Elysia({ name: "async-inference", prefix: "/v1/async" });
  for (const kind of ASYNC_KINDS) {
    app.post(
      `/${kind.name}`,
      async ({ request, set }) => {
        // Before the body is read: a caller who may not run the job stores nothing.
        checkCaller(request.headers);
        const submission = await readSubmission(request, kind.syncPath, hasWebhook);
        const origin = new URL(request.url).origin;
        const job = await jobs.submit({ ...submission, route: kind.name, requestType: kind.requestType, resultUrl: (id) => `${origin}/v1/async/${kind.name}/${id}` });
        return pollReply(job, set);
      },
      { parse: "none", ...replies(pollReplies, { summary: `Submit an async job for ${kind.syncPath}`, description: `The body of POST ${kind.syncPath}; answers 202 with the job at once. Poll GET /v1/async/${kind.name}/{job_id}.` }) },
    );
    app.get(
      `/${kind.name}/:job_id`,
      async ({ params, request, set }) => {
        const found = await jobs.find(params.job_id, ownerOf(request.headers));
        if (!found || found.context.route !== kind.name) throw jobNotFound(params.job_id);
        return pollReply(found, set);
      },
      { params: JobParams, ...replies(pollReplies, { summary: `Poll an async job for ${kind.syncPath}`, description: "202 while it is pending or processing; 200 with `result` or `error` once finished; 404 once expired or for another virtual key." }) },
    );
  }
  return app;
}
