import { Elysia } from "elysia";
import type { Database } from "../db/client";
import { backgroundResponses } from "./background-responses";
import { AsyncJobs, type AsyncJobsDeps } from "./jobs";
import { jobListRoute } from "./list-route";
import { asyncMountHook } from "./mount-hook";
import { asyncRoutes } from "./routes";

export interface AsyncInferenceOptions extends Omit<AsyncJobsDeps, "maxConcurrentJobs"> {
  /** Where the jobs' snapshots are read for the management list (GET /api/async-jobs). */
  db: Database;
  /** Says whether a webhook endpoint of that name exists (`x-gw-async-webhook`). */
  hasWebhook: (name: string) => boolean;
  /** Mount roots where the `x-gw-async` headers apply (`/v1` and the provider and framework mounts). */
  mountRoots: readonly string[];
  /** Paths under those roots that are not inference (`/v1/mcp`): the headers do not apply there. */
  exceptUnder?: readonly string[];
  /**
   * Checks a submission's virtual key as inference checks it (throws the 401 or 403), before
   * anything is stored: a job nobody may run is never written, run or notified.
   */
  checkCaller: (headers: Headers) => void;
  /** Jobs running at once on this node; more wait in `pending`. */
  maxConcurrentJobs?: number;
}

/**
 * Async inference (spec section 1): /v1/async routes, the `x-gw-async` headers on the mounts,
 * the management list of jobs,
 * the job actors (`resume` on start, `stop` on shutdown), and the runs of background responses.
 */
export function createAsyncInference(options: AsyncInferenceOptions) {
  const jobs = new AsyncJobs({ ...options, maxConcurrentJobs: options.maxConcurrentJobs ?? 64 });
  const routes = new Elysia({ name: "async" }).use(asyncMountHook(jobs, options)).use(asyncRoutes(jobs, options)).use(jobListRoute(options.db, options.clock));
  return {
    routes,
    backgroundResponses: backgroundResponses(jobs),
    resume: () => jobs.resume(),
    stop: () => jobs.stop(),
  };
}
