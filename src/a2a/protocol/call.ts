import type { A2AFailure } from "./failure";

/**
 * One A2A operation, binding-neutral. The method is the A2A v1 JSON-RPC method name and the
 * params are its JSON-RPC params, which in v1 carry the same JSON as the HTTP+JSON binding's
 * bodies: translating between the bindings is moving fields between path, query and body.
 */
export interface A2ACall {
  method: string;
  params: Record<string, unknown>;
}

export const A2A_METHODS = {
  sendMessage: "SendMessage",
  sendStreamingMessage: "SendStreamingMessage",
  getTask: "GetTask",
  listTasks: "ListTasks",
  cancelTask: "CancelTask",
  subscribeToTask: "SubscribeToTask",
  createPushConfig: "CreateTaskPushNotificationConfig",
  getPushConfig: "GetTaskPushNotificationConfig",
  listPushConfigs: "ListTaskPushNotificationConfigs",
  deletePushConfig: "DeleteTaskPushNotificationConfig",
  getExtendedAgentCard: "GetExtendedAgentCard",
} as const;

const STREAMING_METHODS: ReadonlySet<string> = new Set([A2A_METHODS.sendStreamingMessage, A2A_METHODS.subscribeToTask]);
const CORE_METHODS: ReadonlySet<string> = new Set(Object.values(A2A_METHODS));

export const isStreamingCall = (call: A2ACall) => STREAMING_METHODS.has(call.method);

/** Extension methods (`myorg.ext/action`) exist only on JSON-RPC; they are passed through as they are. */
export const isCoreMethod = (method: string) => CORE_METHODS.has(method);

/** Where each task-scoped method carries the task's id. */
const TASK_ID_PARAM: Readonly<Record<string, "id" | "taskId">> = {
  [A2A_METHODS.getTask]: "id",
  [A2A_METHODS.cancelTask]: "id",
  [A2A_METHODS.subscribeToTask]: "id",
  [A2A_METHODS.createPushConfig]: "taskId",
  [A2A_METHODS.getPushConfig]: "taskId",
  [A2A_METHODS.listPushConfigs]: "taskId",
  [A2A_METHODS.deletePushConfig]: "taskId",
};

/** The methods that send a message, which continues a task when it names one in `message.taskId`. */
const SENDS: ReadonlySet<string> = new Set([A2A_METHODS.sendMessage, A2A_METHODS.sendStreamingMessage]);

/** The task a call is about, when it names one. */
export function taskIdOf(call: A2ACall): string | undefined {
  const param = TASK_ID_PARAM[call.method];
  const message = SENDS.has(call.method) ? call.params.message : undefined;
  const id = param ? call.params[param] : message && typeof message === "object" ? (message as { taskId?: unknown }).taskId : undefined;
  return typeof id === "string" && id !== "" ? id : undefined;
}

/** A stream event is A2A's `StreamResponse` JSON (`{task}`, `{statusUpdate}`, `{artifactUpdate}` or `{message}`). */
export type StreamItem = { event: Record<string, unknown> } | { failure: A2AFailure };

/** What the upstream answered, read from whichever binding it speaks. */
export type A2AOutcome =
  | { kind: "result"; value: unknown; headers: Headers }
  | { kind: "failure"; failure: A2AFailure; headers?: Headers }
  | { kind: "stream"; items: AsyncIterable<StreamItem>; headers: Headers };
