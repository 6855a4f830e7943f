import { Elysia } from "elysia";
import type { ActorSnapshotStore } from "../../actors/runtime/snapshot-store";
import type { SecretBox } from "../crypto/secret-box";
import type { Database } from "../db/client";
import { a2aAgents } from "../db/schema";
import { reloadOnChange } from "../db/table-changes";
import { AgentRegistry } from "./agent-registry";
import { agentRoutes } from "./agent-routes";
import type { AgentCallerAccess } from "./caller-access";
import { agentProtocolRoutes } from "./protocol-routes";
import { TaskTracker } from "./tasks/task-tracker";
import type { EnvReader } from "../config/env-reference";
import type { OutboundReach } from "../outbound/reach";

export { type AgentCallerAccess, governanceAgentAccess } from "./caller-access";

export interface AgentGatewayOptions {
  db: Database;
  secrets: SecretBox;
  /** Where the tracked tasks' actors are kept. */
  snapshots: ActorSnapshotStore;
  /** `env.NAME` header values, under the configuration's allow-list. */
  readEnv: EnvReader;
  /** The addresses agents may have. */
  outbound: OutboundReach;
  /** Who may reach which agent (virtual keys, grants, rate limits). */
  access: AgentCallerAccess;
}

/**
 * The A2A agent gateway: /api/agents (registry and task history) and /agents/a2a/{name}/...
 * (the agent card, the JSON-RPC binding and the HTTP+JSON binding, proxied upstream).
 */
export async function createAgentGateway({ db, secrets, snapshots, readEnv, outbound, access }: AgentGatewayOptions) {
  const registry = new AgentRegistry(db, secrets, readEnv, outbound);
  const watched = reloadOnChange(db, [a2aAgents], () => registry.load());
  await registry.load();
  const tracker = new TaskTracker(db, snapshots);
  const routes = new Elysia({ name: "a2a" }).use(agentRoutes(registry, db, outbound)).use(agentProtocolRoutes({ registry, tracker, access }));
  return { routes, registry, close: () => watched.stop() };
}
