import { assign, setup } from "xstate";

/** The A2A task lifecycle, in the gateway's spelling of the protocol's `TASK_STATE_*` values. */
export const A2A_TASK_STATES = ["submitted", "working", "input-required", "auth-required", "completed", "canceled", "failed", "rejected"] as const;
export type A2ATaskState = (typeof A2A_TASK_STATES)[number];

export interface A2ATaskTransition {
  state: A2ATaskState;
  /** When the gateway saw the task enter the state (ISO 8601). */
  at: string;
}

export interface A2ATaskContext {
  agent: string;
  taskId: string;
  contextId?: string;
  /** The task's status object exactly as the upstream last sent it (state, timestamp, message). */
  status: Record<string, unknown>;
  transitions: A2ATaskTransition[];
}

/** One status the gateway saw go by: in a Task, a status update, or a reply to get or cancel. */
export interface A2ATaskStatusSeen {
  type: "status.seen";
  state: A2ATaskState;
  at: string;
  status: Record<string, unknown>;
  contextId?: string;
}

const machineSetup = setup({
  types: {
    context: {} as A2ATaskContext,
    events: {} as A2ATaskStatusSeen,
    input: {} as { agent: string; taskId: string; first: A2ATaskStatusSeen },
  },
  actions: {
    recordTransition: assign(({ context, event }) => ({
      status: event.status,
      contextId: event.contextId ?? context.contextId,
      transitions: [...context.transitions, { state: event.state, at: event.at }],
    })),
    refreshStatus: assign(({ context, event }) => ({ status: event.status, contextId: event.contextId ?? context.contextId })),
  },
  guards: {
    entersState: ({ event }, params: { state: A2ATaskState }) => event.state === params.state,
    firstSeenIn: ({ context }, params: { state: A2ATaskState }) => context.transitions[0]?.state === params.state,
  },
});

/** From a live state the upstream may move a task to any other state; a repeat only refreshes the status. */
function liveState(self: A2ATaskState) {
  return {
    on: {
      "status.seen": A2A_TASK_STATES.map((state) =>
        state === self
          ? { guard: { type: "entersState" as const, params: { state } }, actions: "refreshStatus" as const }
          : { guard: { type: "entersState" as const, params: { state } }, target: state, actions: "recordTransition" as const },
      ),
    },
  };
}

/** After these the upstream sends nothing more for the task. */
const terminal = { type: "final" } as const;

/**
 * Mirrors one upstream A2A task. The gateway only observes: the machine moves when a status
 * goes by, so it holds no I/O; the gateway persists its snapshot after every event.
 * The gateway often meets a task midway (a reply already `working`, or `completed`), so the
 * transient `seen` state sends the mirror straight to the state the task was first seen in.
 */
export const a2aTaskMachine = machineSetup.createMachine({
  id: "a2a-task",
  initial: "seen",
  context: ({ input }) => ({
    agent: input.agent,
    taskId: input.taskId,
    contextId: input.first.contextId,
    status: input.first.status,
    transitions: [{ state: input.first.state, at: input.first.at }],
  }),
  states: {
    seen: {
      always: A2A_TASK_STATES.map((state) => ({ guard: { type: "firstSeenIn" as const, params: { state } }, target: state })),
    },
    submitted: liveState("submitted"),
    working: liveState("working"),
    "input-required": liveState("input-required"),
    "auth-required": liveState("auth-required"),
    completed: terminal,
    canceled: terminal,
    failed: terminal,
    rejected: terminal,
  },
});
