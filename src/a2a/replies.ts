import { Type as t } from "@sinclair/typebox";
import { PageFields, Timestamp } from "../http/replies";

/** What /api/agents answers (agent-routes.ts `agentView`, tasks/task-history.ts `taskView`). */

export const AgentReply = t.Object(
  {
    name: t.String(),
    url: t.String(),
    description: t.String(),
    enabled: t.Boolean(),
    headers: t.Record(t.String(), t.String(), { description: "Sent to the agent on every call, values redacted." }),
    gateway_path: t.String({ description: "Where callers reach the agent through the gateway." }),
    agent_card: t.Union([t.Record(t.String(), t.Unknown()), t.Null()], { description: "The agent's card as last fetched; null until one was." }),
    card_fetched_at: t.Union([Timestamp, t.Null()]),
    card_error: t.Union([t.String(), t.Null()], { description: "Why the last fetch of the card failed." }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: "Agent", description: "A registered A2A agent." },
);
export const AgentList = t.Object({ agents: t.Array(AgentReply), count: t.Integer() }, { title: "AgentList" });

const Task = t.Object(
  {
    agent: t.String(),
    task_id: t.String(),
    context_id: t.Union([t.String(), t.Null()]),
    state: t.String({ description: "The A2A task state: `submitted`, `working`, `completed`, ..." }),
    live: t.Boolean({ description: "Whether the task is still in flight." }),
    virtual_key_id: t.Union([t.String(), t.Null()]),
    status: t.Record(t.String(), t.Unknown(), { description: "The status as the agent last sent it." }),
    transitions: t.Array(t.Object({ state: t.String(), at: Timestamp })),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { description: "A task seen through the gateway." },
);
export const TaskPage = t.Object({ tasks: t.Array(Task), ...PageFields }, { title: "AgentTaskPage" });
