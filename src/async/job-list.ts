import { and, count, eq, like, or, type SQL, sql } from "drizzle-orm";
import { t } from "elysia";
import type { AsyncJobContext, JobStatus } from "../../actors/async-job";
import type { Database } from "../db/client";
import { actorSnapshots } from "../db/schema";
import { PageLimit, PageOffset } from "../http/pagination";
import { jobView, statusOf } from "./job-view";

const KIND = "async-job";
const STATUSES = ["pending", "processing", "completed", "failed"] as const;
const DEFAULT_LIMIT = 50;

export const JobListQuery = t.Object({
  // A pattern, not a union of literals: the 400 for another value then lists the accepted ones.
  status: t.Optional(t.String({ pattern: `^(${STATUSES.join("|")})$`, description: "pending, processing, completed or failed" })),
  request_type: t.Optional(t.String({ minLength: 1, maxLength: 100, description: "the job's request type, e.g. chat.completion" })),
  limit: PageLimit(500, DEFAULT_LIMIT),
  offset: PageOffset(0),
});
export type JobListQuery = typeof JobListQuery.static;

/**
 * The snapshot's `state` column is the state value as JSON: `"pending"` and `"processing"` are
 * strings, a finished job is `{"completed": "retained"}` (its notification sub-state inside).
 */
function inStatus(status: JobStatus): SQL {
  return status === "pending" || status === "processing" ? eq(actorSnapshots.state, JSON.stringify(status)) : like(actorSnapshots.state, `{"${status}":%`);
}

const contextField = (name: keyof AsyncJobContext) => sql`json_extract(${actorSnapshots.snapshot}, ${`$.context.${name}`})`;

/** A finished job whose result expired is gone for its owner's poll; the list agrees, even before its actor ends. */
const notExpired = (now: number) => or(eq(actorSnapshots.state, JSON.stringify("pending")), eq(actorSnapshots.state, JSON.stringify("processing")), sql`${contextField("expiresAt")} > ${now}`)!;

/**
 * Every virtual key's async jobs, newest first, as their owner polls them plus the path they
 * were submitted on; read from the shared snapshots, so each node lists the jobs of all.
 */
export async function listJobs(db: Database, query: JobListQuery, now: number) {
  const limit = query.limit ?? DEFAULT_LIMIT;
  const offset = query.offset ?? 0;
  const where = and(
    eq(actorSnapshots.kind, KIND),
    notExpired(now),
    ...(query.status ? [inStatus(query.status as JobStatus)] : []),
    ...(query.request_type ? [eq(contextField("requestType"), query.request_type)] : []),
  );
  // The rowid survives the upsert of each transition: it orders jobs by submission.
  const [rows, [total]] = await Promise.all([
    db.select({ snapshot: actorSnapshots.snapshot }).from(actorSnapshots).where(where).orderBy(sql`rowid desc`).limit(limit).offset(offset),
    db.select({ total: count() }).from(actorSnapshots).where(where),
  ]);
  const jobs = rows.map(({ snapshot }) => {
    const { value, context } = snapshot as { value: unknown; context: AsyncJobContext };
    const status = statusOf(value);
    return { ...jobView(context, status), route: context.route, ...(context.webhook !== undefined && { webhook: context.webhook }) };
  });
  return { jobs, count: jobs.length, total_count: total?.total ?? 0, limit, offset };
}
