import type { StoredResponse } from "../../actors/async-job";
import { REQUEST_TYPE } from "../upstream/operations";
import { DEFAULT_RESULT_TTL_SECONDS } from "./submission";
import type { FoundJob } from "../../actors/async-job";
import type { AsyncJobs } from "./jobs";
import { ownerOf } from "./ownership";
import { storeRequest } from "./stored-request";
import type { BackgroundResponses } from "../responses/background-view";
import { REPLAYED_PROMPT_HEADER, replayedPromptHeader } from "../inference/mounts/prompt-field";

/** The async kind the jobs are: `GET /v1/async/responses/{job_id}` shows them too. */
const ROUTE = "responses";

/**
 * Responses created with `background: true` on providers without a Responses API run as async
 * jobs: durable, resumed after a restart, bounded by the same worker limit. The job replays the
 * request, which as a replay runs in the foreground; its id names the response.
 */
export function backgroundResponses(jobs: AsyncJobs): BackgroundResponses {
  return {
    async start(request: Request, body: Record<string, unknown>): Promise<string> {
      const bytes = new TextEncoder().encode(JSON.stringify(body));
      const { pathname, origin } = new URL(request.url);
      const replayed = storeRequest(request, pathname, bytes.buffer as ArrayBuffer);
      // The body is the prompt already rendered: its replay is logged under the prompt it came from.
      const prompt = replayedPromptHeader(request);
      if (prompt) replayed.headers.push([REPLAYED_PROMPT_HEADER, prompt]);
      const job = await jobs.submit({
        request: replayed,
        resultTtlSeconds: DEFAULT_RESULT_TTL_SECONDS,
        owner: ownerOf(request.headers),
        route: ROUTE,
        requestType: REQUEST_TYPE.responses,
        resultUrl: (id) => `${origin}/v1/async/${ROUTE}/${id}`,
      });
      return job.context.id;
    },
    find: (jobId: string, headers: Headers): Promise<FoundJob | undefined> => jobs.find(jobId, ownerOf(headers)),
    cancel: (jobId: string, headers: Headers, response: StoredResponse): Promise<FoundJob | undefined> => jobs.cancel(jobId, ownerOf(headers), response),
    discard: (jobId: string, headers: Headers): Promise<boolean> => jobs.discard(jobId, ownerOf(headers)),
  };
}
