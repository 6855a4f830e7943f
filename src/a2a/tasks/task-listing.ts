import { Type as t } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { GatewayError } from "../../http/errors";
import { taskStateOf } from "./task-sighting";
import type { OwnedTaskFilter, TaskTracker } from "./task-tracker";

const open = { additionalProperties: true } as const;
const ListTasksJson = t.Object({ tasks: t.Array(t.Object({ id: t.String() }, open)) }, open);

/** ListTasks' filters in the request's params; a state or time that cannot be read filters nothing, as it would upstream. */
function filterOf(params: Record<string, unknown>): OwnedTaskFilter {
  const { contextId, status, statusTimestampAfter } = params;
  const since = typeof statusTimestampAfter === "string" ? new Date(statusTimestampAfter) : undefined;
  return {
    contextId: typeof contextId === "string" && contextId ? contextId : undefined,
    state: typeof status === "string" ? taskStateOf(status) : undefined,
    statusSince: since && !Number.isNaN(since.getTime()) ? since.toISOString() : undefined,
  };
}

/**
 * Narrows an upstream `ListTasksResponse` to the caller's own tasks: those the gateway saw
 * started with the caller's virtual key (with no key, for a caller without one). Tasks the
 * gateway never saw belong to nobody it can vouch for and are left out.
 *
 * Pagination stays the upstream's: `nextPageToken` and `pageSize` pass through unchanged, so a
 * page may hold fewer of the caller's tasks than `pageSize` (even none) while more follow; a
 * caller reads on until `nextPageToken` is empty, as A2A asks. The upstream's `totalSize` counts
 * every caller's tasks, so it is replaced by the total, before pagination, of the caller's own
 * tasks that match the request's filters (context, state, status time), counted in the
 * gateway's task records rather than by reading pages the caller did not ask for.
 * An answer that is not a task list is refused rather than passed on unfiltered.
 */
export async function ownTasksOnly(
  tracker: TaskTracker,
  agent: string,
  virtualKeyId: string | undefined,
  params: Record<string, unknown>,
  listed: unknown,
): Promise<Record<string, unknown>> {
  if (!Value.Check(ListTasksJson, listed)) {
    throw new GatewayError({ status: 502, errorType: "provider_bad_response", message: `agent '${agent}' answered ListTasks without a task list` });
  }
  const owned = await tracker.ownedBy(
    agent,
    listed.tasks.map((task) => task.id),
    virtualKeyId,
  );
  const tasks = listed.tasks.filter((task) => owned.has(task.id));
  return { ...listed, tasks, totalSize: await tracker.countOwned(agent, virtualKeyId, filterOf(params)) };
}
