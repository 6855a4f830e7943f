import { Elysia } from "elysia";
import { principalOf } from "../access";
import type { Database } from "../db/client";
import { checkWrittenAddresses, mayReachPrivateNetwork, type OutboundReach } from "../outbound/reach";
import { redactSecret } from "../provider-registry/key-secrets";
import type { AgentRegistry, RegisteredAgent } from "./agent-registry";
import { AgentCreateInput, AgentParams, AgentUpdateInput, TaskHistoryQuery } from "./schemas";
import { taskHistory, taskView } from "./tasks/task-history";
import { Deleted, replies } from "../http/replies";
import { AgentList, AgentReply, TaskPage } from "./replies";

export function agentView(agent: RegisteredAgent) {
  return {
    name: agent.name,
    url: agent.url,
    description: agent.description,
    enabled: agent.enabled,
    headers: Object.fromEntries(Object.entries(agent.headers).map(([name, value]) => [name, redactSecret(value)])),
    /** Where callers reach the agent through the gateway. */
    gateway_path: `/agents/a2a/${agent.name}`,
    agent_card: agent.card,
    card_fetched_at: agent.cardFetchedAt?.toISOString() ?? null,
    card_error: agent.cardError,
    created_at: agent.createdAt.toISOString(),
    updated_at: agent.updatedAt.toISOString(),
  };
}

/** Every agent write carries its address: the agent's reach of private addresses is its writer's. */
async function reachWritten(request: Request, body: unknown, outbound: OutboundReach): Promise<boolean> {
  const principal = principalOf(request);
  await checkWrittenAddresses(body, principal, outbound);
  return mayReachPrivateNetwork(principal, outbound);
}

/** /api/agents: the registered A2A agents, and the history of the tasks seen through them. */
export const agentRoutes = (registry: AgentRegistry, db: Database, outbound: OutboundReach) =>
  new Elysia({ name: "a2a-agents", prefix: "/api/agents" })
    .get("/", () => {
      const agents = registry.list().map(agentView);
      return { agents, count: agents.length };
    }, replies({ 200: AgentList }, { summary: "List A2A agents" }))
    .post(
      "/",
      async ({ body, set, request }) => {
        const reach = await reachWritten(request, body, outbound);
        set.status = 201;
        return agentView(await registry.create(body, reach));
      },
      { body: AgentCreateInput, ...replies({ 201: AgentReply }, { summary: "Register an A2A agent", description: "Its card is fetched from `url`; a failed fetch is kept in `card_error`." }) },
    )
    .get(
      "/history",
      async ({ query }) => {
        const { tasks, total, limit, offset } = await taskHistory(db, query);
        return { tasks: tasks.map(taskView), count: tasks.length, total_count: total, limit, offset };
      },
      { query: TaskHistoryQuery, ...replies({ 200: TaskPage }, { summary: "List A2A task history", description: "Tasks seen through the gateway's agents, newest first." }) },
    )
    .get("/:name", ({ params }) => agentView(registry.require(params.name)), { params: AgentParams, ...replies({ 200: AgentReply }, { summary: "Get an A2A agent" }) })
    .put("/:name", async ({ params, body, request }) => agentView(await registry.update(params.name, body, await reachWritten(request, body, outbound))), {
      params: AgentParams,
      body: AgentUpdateInput,
      ...replies({ 200: AgentReply }, { summary: "Replace an A2A agent" }),
    })
    .delete(
      "/:name",
      async ({ params }) => {
        await registry.remove(params.name);
        return { message: "Agent deleted successfully" };
      },
      { params: AgentParams, ...replies({ 200: Deleted }, { summary: "Delete an A2A agent" }) },
    );
