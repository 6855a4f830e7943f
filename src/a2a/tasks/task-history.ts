import { and, count, desc, eq, type SQL } from "drizzle-orm";
import type { Database } from "../../db/client";
import { a2aTasks } from "../../db/schema";
import type { TaskHistoryQuery } from "../schemas";
import { type TaskRecord, taskRecordOf } from "./task-tracker";

function conditions(query: TaskHistoryQuery): SQL | undefined {
  const all: SQL[] = [];
  if (query.agent !== undefined) all.push(eq(a2aTasks.agentName, query.agent));
  if (query.task_id !== undefined) all.push(eq(a2aTasks.taskId, query.task_id));
  if (query.context_id !== undefined) all.push(eq(a2aTasks.contextId, query.context_id));
  if (query.state !== undefined) all.push(eq(a2aTasks.state, query.state));
  if (query.live !== undefined) all.push(eq(a2aTasks.live, query.live));
  if (query.virtual_key_id !== undefined) all.push(eq(a2aTasks.virtualKeyId, query.virtual_key_id));
  return all.length > 0 ? and(...all) : undefined;
}

/** Tasks seen through the gateway, most recently active first. */
export async function taskHistory(db: Database, query: TaskHistoryQuery): Promise<{ tasks: TaskRecord[]; total: number; limit: number; offset: number }> {
  const where = conditions(query);
  const limit = query.limit ?? 100;
  const offset = query.offset ?? 0;
  const rows = await db.select().from(a2aTasks).where(where).orderBy(desc(a2aTasks.updatedAt), desc(a2aTasks.createdAt)).limit(limit).offset(offset);
  const [totals] = await db.select({ total: count() }).from(a2aTasks).where(where);
  return { tasks: rows.map(taskRecordOf), total: totals?.total ?? 0, limit, offset };
}

export function taskView(record: TaskRecord) {
  return {
    agent: record.agent,
    task_id: record.taskId,
    context_id: record.contextId ?? null,
    state: record.state,
    live: record.live,
    virtual_key_id: record.virtualKeyId ?? null,
    status: record.status,
    transitions: record.transitions,
    created_at: record.createdAt.toISOString(),
    updated_at: record.updatedAt.toISOString(),
  };
}
