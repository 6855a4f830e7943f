import { Elysia, t } from "elysia";
import { notFound } from "../http/errors";
import { ASYNC_KINDS } from "./job-kinds";
import { jobView } from "./job-view";
import type { FoundJob } from "../../actors/async-job";
import type { AsyncJobs } from "./jobs";
import { ownerOf } from "./ownership";
import { readSubmission } from "./submission";

export const jobNotFound = (id: string) => notFound(`async job '${id}' does not exist, has expired, or belongs to another virtual key`, "caller_async_job_not_found");

const JobParams = t.Object({ job_id: t.String({ minLength: 1 }) });

/** 202 while the job is pending or processing, 200 once it has a result or an error. */
export function pollResponse(found: FoundJob): Response {
  const finished = found.status === "completed" || found.status === "failed";
  return Response.json(jobView(found.context, found.status), { status: finished ? 200 : 202, headers: { "x-gw-async-id": found.context.id } });
}

/** /v1/async/{kind}: submit (202 with the job) and poll (GET .../{job_id}). */
export function asyncRoutes(jobs: AsyncJobs, { hasWebhook, checkCaller }: { hasWebhook: (name: string) => boolean; checkCaller: (headers: Headers) => void }) {
  const app = new Elysia({ name: "async-inference", prefix: "/v1/async" });
  for (const kind of ASYNC_KINDS) {
    app.post(
      `/${kind.name}`,
      async ({ request }) => {
        // Before the body is read: a caller who may not run the job stores nothing.
        checkCaller(request.headers);
        const submission = await readSubmission(request, kind.syncPath, hasWebhook);
        const origin = new URL(request.url).origin;
        const job = await jobs.submit({ ...submission, route: kind.name, requestType: kind.requestType, resultUrl: (id) => `${origin}/v1/async/${kind.name}/${id}` });
        return pollResponse(job);
      },
      { parse: "none" },
    );
    app.get(
      `/${kind.name}/:job_id`,
      async ({ params, request }) => {
        const found = await jobs.find(params.job_id, ownerOf(request.headers));
        if (!found || found.context.route !== kind.name) throw jobNotFound(params.job_id);
        return pollResponse(found);
      },
      { params: JobParams },
    );
  }
  return app;
}
