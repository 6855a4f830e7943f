import { Type as t } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { A2A_TASK_STATES, type A2ATaskState } from "../../../actors/a2a-task";

const open = { additionalProperties: true } as const;
const StatusJson = t.Object({ state: t.String() }, open);
const TaskJson = t.Object({ id: t.String({ minLength: 1 }), contextId: t.Optional(t.String()), status: StatusJson }, open);
const StatusUpdateJson = t.Object({ taskId: t.String({ minLength: 1 }), contextId: t.Optional(t.String()), status: StatusJson }, open);

/** A task's status as it went by the gateway. */
export interface TaskSighting {
  taskId: string;
  contextId?: string;
  state: A2ATaskState;
  status: Record<string, unknown>;
}

const KNOWN_STATES: ReadonlySet<string> = new Set(A2A_TASK_STATES);

/** `TASK_STATE_INPUT_REQUIRED` (v1 JSON) or `input-required` (the older spelling) to `input-required`. */
export function taskStateOf(wire: string): A2ATaskState | undefined {
  const state = wire.replace(/^TASK_STATE_/, "").toLowerCase().replaceAll("_", "-");
  return KNOWN_STATES.has(state) ? (state as A2ATaskState) : undefined;
}

function sighting(taskId: string, contextId: string | undefined, status: Record<string, unknown> & { state: string }): TaskSighting | undefined {
  const state = taskStateOf(status.state);
  return state && { taskId, contextId: contextId || undefined, state, status };
}

/** A Task JSON (the reply to get and cancel). */
export function sightingInTask(value: unknown): TaskSighting | undefined {
  return Value.Check(TaskJson, value) ? sighting(value.id, value.contextId, value.status) : undefined;
}

/** A `StreamResponse` JSON, which is also the shape of a send-message reply: `{task}` or `{statusUpdate}` carry a status. */
export function sightingInStreamEvent(event: unknown): TaskSighting | undefined {
  if (typeof event !== "object" || event === null) return undefined;
  if ("task" in event) return sightingInTask(event.task);
  if ("statusUpdate" in event && Value.Check(StatusUpdateJson, event.statusUpdate)) {
    const update = event.statusUpdate;
    return sighting(update.taskId, update.contextId, update.status);
  }
  return undefined;
}
