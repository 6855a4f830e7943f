import { Elysia } from "elysia";
import type { Clock } from "../../actors/runtime/clock";
import type { Database } from "../db/client";
import { replies } from "../http/replies";
import { JobListQuery, listJobs } from "./job-list";
import { AsyncJobPage } from "./replies";

/** GET /api/async-jobs: the management view of every caller's jobs (filters `status`, `request_type`; `limit`, `offset`). */
export const jobListRoute = (db: Database, clock: Clock) =>
  new Elysia({ name: "async-job-list", prefix: "/api/async-jobs" }).get("/", ({ query }) => listJobs(db, query, clock.now()), {
    query: JobListQuery,
    ...replies({ 200: AsyncJobPage }, { summary: "List async jobs", description: "Every virtual key's async jobs, newest first, as their owners poll them; expired results are left out." }),
  });
