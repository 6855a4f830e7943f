import { Elysia } from "elysia";
import type { Clock } from "../../actors/runtime/clock";
import { systemClock } from "../../actors/runtime/clock";
import type { ActorSnapshotStore } from "../../actors/runtime/snapshot-store";
import { ApiKeyStore } from "../access/api-keys/store";
import type { EnvReader } from "../config/env-reference";
import type { OutboundReach } from "../outbound/reach";
import type { SecretBox } from "../crypto/secret-box";
import type { Database } from "../db/client";
import { mcpClients, mcpOAuthConnections } from "../db/schema";
import { reloadOnChange } from "../db/table-changes";
import type { Inference } from "../inference/handle";
import { mcpChatHook } from "./chat/hook";
import { McpClientRegistry } from "./clients/registry";
import { mcpClientRoutes } from "./clients/routes";
import { McpClientStore } from "./clients/store";
import type { McpClientConfig } from "./clients/config";
import { McpOAuthConnections, type OAuthAuditEvent } from "./oauth/connections";
import { mcpOAuthRoutes } from "./oauth/routes";
import { McpOAuthStore } from "./oauth/store";
import { mcpLogSource } from "./logs/live-source";
import { McpLogWriter } from "./logs/writer";
import { observedToolCalls, type ToolCallObserver } from "./logs/observed";
import { mcpLogRoutes } from "./logs/routes";
import { PerUserHeaderResolver } from "./per-user/auth-required";
import { PerUserCredentialStore } from "./per-user/credentials";
import { PerUserHeaderFlowStore } from "./per-user/flows";
import { completePerUserOAuth, PerUserOAuthResolver } from "./per-user/oauth";
import { perUserHeaderRoutes } from "./per-user/routes";
import { verifyAgainstUpstream } from "./per-user/submission";
import { mcpServerRoutes } from "./server/routes";
import { CatalogueSearch } from "./search/catalogue-index";
import { pipelineEmbedder } from "./search/embedder";
import { openApiPreviewRoute } from "./openapi/preview-route";
import type { ResolvedMcpSettings } from "../config/sections/mcp";
import { toolExecuteRoute } from "./tool-execute-route";
import { ToolExecutor } from "./tools/executor";
import { type VirtualKeySource, virtualKeysFromGovernance } from "./virtual-keys";
import { createVirtualServers } from "./virtual";
import type { SessionUserOf } from "./virtual/access";

export { resolveMcpSettings } from "../config/sections/mcp";

export interface McpGatewayOptions {
  db: Database;
  secrets: SecretBox;
  /** Where the per-user header flows' actors are kept. */
  snapshots: ActorSnapshotStore;
  settings: ResolvedMcpSettings;
  /** Governance's virtual keys (its in-memory store). */
  virtualKeys: VirtualKeySource;
  /** `enforce_auth_on_inference`, read per call: the setting may change at runtime. */
  enforceAuth: () => boolean;
  /** Whether tool arguments and results are logged (default true). */
  contentLogging?: () => boolean;
  /** GATEWAY_REGION of this node, stored on every tool-call log row. */
  region?: string;
  /** Told of every tool call as it ends (the trace exporter); unset, calls pay nothing for it. */
  onToolCall?: ToolCallObserver;
  /** The inference pipeline, for agent mode's follow-up requests. */
  inference: () => Inference;
  clock?: Clock;
  /** Wall time for OAuth token expiry (tests move it). */
  now?: () => number;
  /** OAuth connections made and refreshes that failed, for the audit log. */
  audit?: (event: OAuthAuditEvent) => void;
  /** `env.NAME` header and stdio env values, under the configuration's allow-list. */
  readEnv: EnvReader;
  outbound: OutboundReach;
  /** The dashboard user of a session token, for virtual servers that admit users by id or role. */
  sessionUser?: SessionUserOf;
}

/**
 * The MCP gateway: upstream clients and their connections, tool execution, MCP in chat requests
 * (`hook`), the gateway's own /mcp server, per-user header flows and MCP logs. Clients another
 * node on the same database adds, changes or removes are applied here within a second.
 * `close()` ends every upstream connection.
 */
export async function createMcpGateway(options: McpGatewayOptions) {
  const { db, secrets, settings } = options;
  const timings = { requestTimeoutMs: settings.toolTimeoutMs, reconnectInitialMs: settings.reconnectInitialMs, reconnectMaxMs: settings.reconnectMaxMs, healthCheckMs: settings.healthCheckMs };
  let registry: McpClientRegistry | undefined;
  const oauth = new McpOAuthConnections(new McpOAuthStore(db, secrets), {
    outbound: options.outbound,
    now: options.now ?? Date.now,
    audit: options.audit,
    connected: async (id) => void (await registry?.reconnect(id)),
  });
  const reach = { stdioAllowedCommands: settings.stdioAllowedCommands, readEnv: options.readEnv, outbound: options.outbound, oauth: (config: McpClientConfig) => oauth.providerFor(config) };
  registry = new McpClientRegistry(new McpClientStore(db, secrets), timings, reach);
  const credentials = new PerUserCredentialStore(db, secrets);
  const verifyHeaders = verifyAgainstUpstream(registry, settings.toolTimeoutMs, reach);
  const configOf = (id: string) => registry?.get(id)?.config;
  // A per-user OAuth flow is verified by exchanging the code its callback brought.
  const verify = (mcpClientId: string, values: Record<string, string>) =>
    configOf(mcpClientId)?.authType === "oauth" ? oauth.exchange(values.state ?? "", values.code ?? "", configOf).then(() => undefined) : verifyHeaders(mcpClientId, values);
  const flows = new PerUserHeaderFlowStore(db, options.snapshots, settings.flowTtlMs, options.clock ?? systemClock, verify);
  const perUser = new PerUserHeaderResolver(credentials, flows, settings.publicBaseUrl);
  const perUserOAuth = new PerUserOAuthResolver(oauth, flows, settings.publicBaseUrl);
  const toolLog = new McpLogWriter(db, options.contentLogging ?? (() => true), options.region ?? null);
  const executor = new ToolExecutor(registry, perUser, perUserOAuth, options.onToolCall ? observedToolCalls(toolLog, options.onToolCall) : toolLog, { timeoutMs: settings.toolTimeoutMs, maxTimeoutMs: settings.toolMaxTimeoutMs }, reach);
  const watched = reloadOnChange(db, [mcpClients], () => registry.load(), settings.changeCheckMs);
  // Another node's consent or failed refresh shows in this node's client list too.
  const watchedConnections = reloadOnChange(db, [mcpOAuthConnections], () => oauth.load(), settings.changeCheckMs);
  await oauth.load();
  await registry.load();
  await flows.resume();

  const virtualKeys = virtualKeysFromGovernance(options.virtualKeys);
  const auth = { virtualKeys, enforceAuth: options.enforceAuth };
  const apiKeys = new ApiKeyStore(db);
  const removeClient = async (id: string) => {
    registry.require(id);
    await flows.removeForClient(id);
    await registry.remove(id);
    oauth.forget(id);
  };
  const embedModel = settings.toolSearchEmbeddingModel;
  const embed = embedModel ? pipelineEmbedder(options.inference, embedModel) : undefined;
  const toolSearch = new CatalogueSearch(registry, embed);
  const virtualServers = await createVirtualServers(db, registry, virtualKeys, { embed, changeCheckMs: settings.changeCheckMs });
  const server = mcpServerRoutes({ registry, executor, auth, settings, secrets, virtualServers: virtualServers.store, sessionUser: options.sessionUser });
  const routes = new Elysia({ name: "mcp" })
    .use(mcpClientRoutes(registry, removeClient, (config) => oauth.view(config)))
    .use(openApiPreviewRoute(options.outbound))
    .use(mcpOAuthRoutes(registry, oauth, settings.publicBaseUrl, completePerUserOAuth(flows)))
    .use(perUserHeaderRoutes({ flows, credentials, registry }, (presented) => apiKeys.lookup(presented)))
    .use(mcpLogRoutes(db, () => new Date()))
    .use(toolExecuteRoute(executor, auth))
    .use(virtualServers.routes)
    .use(server.routes);

  return {
    hook: mcpChatHook({ registry, executor, virtualKeys, agentMaxDepth: settings.agentMaxDepth, keepAliveMs: settings.agentKeepAliveMs, publicBaseUrl: settings.publicBaseUrl, inference: options.inference, sampling: settings.agentSampling, timeouts: { timeoutMs: settings.toolTimeoutMs, maxTimeoutMs: settings.toolMaxTimeoutMs }, toolSearch }),
    routes,
    /** The tool calls as they start and end, for the live feed (GET /api/ws). */
    liveSource: mcpLogSource(db),
    /** Before a drain: the long-lived MCP streams end cleanly, so clients reconnect to another node. */
    endStreams: () => server.endStreams(),
    async close() {
      await server.close();
      await watched.stop();
      await watchedConnections.stop();
      await virtualServers.stop();
      await flows.stop();
      await registry.close();
    },
  };
}
