import { Type as t } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { GatewayError } from "../../http/errors";
import type { TaskTracker } from "./task-tracker";

const open = { additionalProperties: true } as const;
const ListTasksJson = t.Object({ tasks: t.Array(t.Object({ id: t.String() }, open)) }, open);

/**
 * Narrows an upstream `ListTasksResponse` to the caller's own tasks: those the gateway saw
 * started with the caller's virtual key (with no key, for a caller without one). Tasks the
 * gateway never saw belong to nobody it can vouch for and are left out.
 *
 * Pagination stays the upstream's: `nextPageToken` and `pageSize` pass through unchanged, so a
 * page may hold fewer of the caller's tasks than `pageSize` (even none) while more follow; a
 * caller reads on until `nextPageToken` is empty, as A2A asks. `totalSize` would count other
 * keys' tasks, so it is replaced by the number of the caller's tasks on this page: exact when
 * the list fits in one page; the gateway does not read pages it was not asked for to count them.
 * An answer that is not a task list is refused rather than passed on unfiltered.
 */
export async function ownTasksOnly(tracker: TaskTracker, agent: string, virtualKeyId: string | undefined, listed: unknown): Promise<Record<string, unknown>> {
  if (!Value.Check(ListTasksJson, listed)) {
    throw new GatewayError({ status: 502, errorType: "provider_bad_response", message: `agent '${agent}' answered ListTasks without a task list` });
  }
  const owned = await tracker.ownedBy(
    agent,
    listed.tasks.map((task) => task.id),
    virtualKeyId,
  );
  const tasks = listed.tasks.filter((task) => owned.has(task.id));
  return { ...listed, tasks, totalSize: tasks.length };
}
