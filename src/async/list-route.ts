import { Elysia } from "elysia";
import type { Clock } from "../../actors/runtime/clock";
import type { Database } from "../db/client";
import { JobListQuery, listJobs } from "./job-list";

/** GET /api/async-jobs: the management view of every caller's jobs (filters `status`, `request_type`; `limit`, `offset`). */
export const jobListRoute = (db: Database, clock: Clock) =>
  new Elysia({ name: "async-job-list", prefix: "/api/async-jobs" }).get("/", ({ query }) => listJobs(db, query, clock.now()), { query: JobListQuery });
