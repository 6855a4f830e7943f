/**
 * The dashboard's types (types.ts) checked against the routes they talk to: each response the
 * server infers from its handler must fit what the page reads, and each body the page sends must
 * fit the route's TypeBox schema. Nothing here runs; `tsc --noEmit` fails when they drift.
 */
import type { authConfigRoutes } from "../../access/auth-config-routes";
import type { sessionRoutes } from "../../access/session-routes";
import type { organizationRoutes } from "../../governance/routes/organization";
import type { pricingOverrideRoutes } from "../../governance/routes/pricing-overrides";
import type { routingRuleRoutes } from "../../governance/routes/routing-rules";
import type { usageRoutes } from "../../governance/routes/usage";
import type { virtualKeyRoutes } from "../../governance/routes/virtual-keys";
import type { logRoutes } from "../../logs/routes";
import type { providerRoutes } from "../../provider-registry/routes";
import type { guardrailRoutes } from "../../guardrails/routes";
import type { GuardrailPolicyInput, GuardrailPolicyUpdate } from "../../guardrails/schemas";
import type { mcpClientRoutes } from "../../mcp/clients/routes";
import type { mcpLogRoutes } from "../../mcp/logs/routes";
import type { cacheRoutes } from "../../cache/routes";
import type { pluginRoutes } from "../../plugins/routes";
import type { agentRoutes } from "../../a2a/agent-routes";
import type { apiKeyRoutes } from "../../access/api-keys/routes";
import type { auditRoutes } from "../../access/audit/routes";
import type { rbacRoutes } from "../../access/rbac/routes";
import type { ChatEvents } from "../../warp/agent/events";
import type { chatRoutes } from "../../warp/agent/routes";
import type { warpConfigRoutes } from "../../warp/config/routes";
import type { conversationRoutes } from "../../warp/conversations/routes";
import type { lifecycleRoutes } from "../../lifecycles/routes";
import type { webhookRoutes } from "../../webhooks/routes";
import type { alertRoutes } from "../../alerts/routes";
import type { ChannelCreate, RuleCreate } from "../../alerts/schemas";
import type { jobListRoute } from "../../async/list-route";
import type * as Ui from "./types";

type Fits<From, To> = [From] extends [To] ? true : false;
type Holds<Check extends true> = Check;
type RoutesOf<Plugin extends (...args: never[]) => { "~Routes": unknown }> = ReturnType<Plugin>["~Routes"];

type Session = RoutesOf<typeof sessionRoutes>["api"]["session"];
type AuthConfig = RoutesOf<typeof authConfigRoutes>["api"]["config"]["auth"];
type Logs = RoutesOf<typeof logRoutes>["api"]["logs"];
type Providers = RoutesOf<typeof providerRoutes>["api"]["providers"];
type VirtualKeys = RoutesOf<typeof virtualKeyRoutes>["virtual-keys"];
type Organization = RoutesOf<typeof organizationRoutes>;
type RoutingRules = RoutesOf<typeof routingRuleRoutes>["routing-rules"];
type PricingOverrides = RoutesOf<typeof pricingOverrideRoutes>["pricing-overrides"];
type Usage = RoutesOf<typeof usageRoutes>;
type Webhooks = RoutesOf<typeof webhookRoutes>["api"]["webhooks"];
type Alerts = RoutesOf<typeof alertRoutes>["api"]["alerts"];
type Plugins = RoutesOf<typeof pluginRoutes>["api"]["plugins"];
type Cache = RoutesOf<typeof cacheRoutes>["api"]["cache"];
type Agents = RoutesOf<typeof agentRoutes>["api"]["agents"];
type Rbac = RoutesOf<typeof rbacRoutes>["api"]["governance"]["rbac"];
type ApiKeys = RoutesOf<typeof apiKeyRoutes>["api"]["api-keys"];
type Audit = RoutesOf<typeof auditRoutes>["api"]["governance"]["audit-logs"];
type WarpConfig = RoutesOf<typeof warpConfigRoutes>["api"]["warp"]["config"];
type WarpChat = RoutesOf<typeof chatRoutes>["api"]["warp"]["chat"];
type WarpConversations = RoutesOf<typeof conversationRoutes>["api"]["warp"]["conversations"];
type Actors = RoutesOf<typeof lifecycleRoutes>["api"]["actors"];
type Mcp = RoutesOf<typeof mcpClientRoutes>["api"]["mcp"];
type Guardrails = RoutesOf<typeof guardrailRoutes>["api"]["guardrails"];
type McpLogs = RoutesOf<typeof mcpLogRoutes>["api"]["mcp-logs"];
type AsyncJobs = RoutesOf<typeof jobListRoute>["api"]["async-jobs"];

export type Contract = [
  Holds<Fits<Session["is-auth-enabled"]["get"]["response"][200], Ui.AuthProbe>>,
  Holds<Fits<Session["me"]["get"]["response"][200], Ui.Me>>,
  Holds<Fits<Ui.AuthConfigInput, AuthConfig["put"]["body"]>>,
  Holds<Fits<AuthConfig["get"]["response"][200], Ui.AuthConfig>>,
  Holds<Fits<Rbac["permissions"]["get"]["response"][200], { permissions: readonly Ui.Permission[] }>>,
  Holds<Fits<Rbac["roles"]["get"]["response"][200], { roles: Ui.Role[] }>>,
  Holds<Fits<{ name: string; permission_ids: number[] }, Rbac["roles"]["post"]["body"]>>,
  Holds<Fits<{ permission_ids: number[] }, Rbac["roles"][":role_id"]["permissions"]["put"]["body"]>>,
  Holds<Fits<Rbac["users"]["get"]["response"][200], { users: Ui.RbacUser[] }>>,
  Holds<Fits<{ username: string; role_id: number; password?: string }, Rbac["users"]["post"]["body"]>>,
  Holds<Fits<ApiKeys["get"]["response"][200], { api_keys: Ui.ApiKey[] }>>,
  Holds<Fits<ApiKeys["post"]["response"][201], { api_key: Ui.ApiKey; key: string }>>,
  Holds<Fits<{ name: string; scopes: number[] }, ApiKeys["post"]["body"]>>,
  Holds<Fits<Audit["get"]["response"][200], { audit_logs: Ui.AuditEvent[] }>>,
  Holds<Fits<Audit[":id"]["verify"]["get"]["response"][200], { valid: boolean }>>,

  Holds<Fits<Logs["get"]["response"][200], Ui.LogPage>>,
  Holds<Fits<Logs[":id"]["get"]["response"][200], Ui.LogDetail>>,
  Holds<Fits<Logs["stats"]["get"]["response"][200], Ui.LogStats>>,
  Holds<Fits<Logs["histogram"]["get"]["response"][200], Ui.Histogram>>,
  Holds<Fits<Logs["rankings"]["get"]["response"][200], Ui.Rankings | Ui.VirtualKeyRankings>>,
  Holds<Fits<{ ids: string[] }, Logs["delete"]["body"]>>,

  Holds<Fits<Providers["get"]["response"][200], { providers: Ui.Provider[] }>>,
  Holds<Fits<Ui.ProviderInput, Providers["post"]["body"]>>,
  Holds<Fits<Omit<Ui.ProviderInput, "provider">, Providers[":provider"]["put"]["body"]>>,
  Holds<Fits<Ui.ProviderKeyInput, Providers[":provider"]["keys"]["post"]["body"]>>,
  Holds<Fits<Providers[":provider"]["keys"][":key_id"]["refresh-models"]["post"]["response"][200], Ui.ProviderKey & { reachable_models: string[] }>>,

  Holds<Fits<VirtualKeys["get"]["response"][200], { virtual_keys: Ui.VirtualKey[] }>>,
  Holds<Fits<VirtualKeys["post"]["response"][201], { virtual_key: Ui.VirtualKey & { value: string } }>>,
  Holds<Fits<Ui.VirtualKeyInput & { name: string }, VirtualKeys["post"]["body"]>>,
  Holds<Fits<Ui.VirtualKeyInput, VirtualKeys[":id"]["put"]["body"]>>,
  Holds<Fits<VirtualKeys[":id"]["rotate"]["post"]["response"][200], { virtual_key: Ui.VirtualKey & { value: string } }>>,
  Holds<Fits<VirtualKeys[":id"]["sessions"]["get"]["response"][200], { sessions: Ui.SessionSpent[] }>>,

  Holds<Fits<Organization["teams"]["get"]["response"][200], { teams: Ui.Team[] }>>,
  Holds<Fits<Organization["customers"]["get"]["response"][200], { customers: Ui.Customer[] }>>,
  Holds<Fits<Ui.OrgInput & { name: string }, Organization["teams"]["post"]["body"]>>,
  Holds<Fits<Omit<Ui.OrgInput, "customer_id"> & { name: string }, Organization["customers"]["post"]["body"]>>,

  Holds<Fits<RoutingRules["get"]["response"][200], { rules: Ui.RoutingRule[] }>>,
  Holds<Fits<Ui.RoutingRuleInput, RoutingRules["post"]["body"]>>,
  Holds<Fits<PricingOverrides["get"]["response"][200], { pricing_overrides: Ui.PricingOverride[] }>>,
  Holds<Fits<Ui.PricingOverrideInput, PricingOverrides["post"]["body"]>>,

  Holds<Fits<Usage["budgets"]["get"]["response"][200], { budgets: Ui.BudgetUsage[] }>>,

  Holds<Fits<Webhooks["get"]["response"][200], { webhooks: Ui.WebhookEndpoint[] }>>,
  Holds<Fits<Webhooks["post"]["response"][201], { endpoint: Ui.WebhookEndpoint; secret: string }>>,
  Holds<Fits<Webhooks[":id"]["deliveries"]["get"]["response"][200], { deliveries: Ui.Delivery[] }>>,
  Holds<Fits<Webhooks[":id"]["test"]["post"]["response"][200], Ui.Delivery>>,
  Holds<Fits<Webhooks["deliveries"][":id"]["redeliver"]["post"]["response"][202], { status: string; webhook_id: string }>>,

  Holds<Fits<AsyncJobs["get"]["response"][200], Ui.AsyncJobPage>>,

  Holds<Fits<Alerts["rules"]["get"]["response"][200], { rules: Ui.AlertRule[] }>>,
  Holds<Fits<Alerts["rules"][":id"]["history"]["get"]["response"][200], { history: Ui.AlertHistoryEntry[] }>>,
  Holds<Fits<Alerts["channels"]["get"]["response"][200], { channels: Ui.AlertChannel[] }>>,
  Holds<Fits<Alerts["channels"][":id"]["test"]["post"]["response"][200], { delivered: boolean; detail: string }>>,
  Holds<Fits<Alerts["builtins"]["get"]["response"][200], { builtins: Ui.AlertBuiltin[] }>>,
  Holds<Fits<Alerts["forecast"]["get"]["response"][200], { forecasts: Ui.BudgetForecast[] }>>,

  Holds<Fits<Mcp["clients"]["get"]["response"][200], { clients: Ui.McpClient[] }>>,
  Holds<Fits<Mcp["client"]["post"]["response"][201], Ui.McpClient>>,
  Holds<Fits<Ui.McpClientInput & { name: string; connection_type: Ui.McpConnectionType }, Mcp["client"]["post"]["body"]>>,
  Holds<Fits<Ui.McpClientInput, Mcp["client"][":id"]["put"]["body"]>>,
  Holds<Fits<McpLogs["get"]["response"][200], { logs: Ui.McpLog[] }>>,
  Holds<Fits<McpLogs["histogram"]["cost"]["get"]["response"][200], Ui.CostHistogram>>,

  Holds<Fits<Guardrails["get"]["response"][200], { guardrails: Ui.Guardrail[] }>>,
  Holds<Fits<Guardrails["post"]["response"][201], { guardrail: Ui.Guardrail }>>,
  Holds<Fits<Guardrails[":id"]["put"]["response"][200], { guardrail: Ui.Guardrail }>>,

  Holds<Fits<Plugins["get"]["response"][200], { plugins: Ui.Plugin[] }>>,
  Holds<Fits<Ui.PluginInput & { name: string }, Plugins["post"]["body"]>>,
  Holds<Fits<Ui.PluginInput, Plugins[":name"]["put"]["body"]>>,
  Holds<Fits<Agents["get"]["response"][200], { agents: Ui.Agent[] }>>,
  Holds<Fits<Ui.AgentInput & { name: string; url: string }, Agents["post"]["body"]>>,
  Holds<Fits<Ui.AgentInput & { url: string }, Agents[":name"]["put"]["body"]>>,
  Holds<Fits<Agents["history"]["get"]["response"][200], { tasks: Ui.AgentTask[] }>>,
  Holds<Fits<WarpConfig["get"]["response"][200], Ui.WarpConfig>>,
  Holds<Fits<Ui.WarpConfigInput, WarpConfig["put"]["body"]>>,
  Holds<Fits<Ui.WarpChatInput, WarpChat["post"]["body"]>>,
  Holds<Fits<WarpConversations["get"]["response"][200], { conversations: Ui.WarpConversation[] }>>,
  Holds<Fits<WarpConversations[":id"]["get"]["response"][200], { messages: Ui.WarpMessage[] }>>,
  Holds<Fits<{ [Name in keyof ChatEvents]: ChatEvents[Name] }, { [Name in keyof Ui.WarpChatEvents]: Ui.WarpChatEvents[Name] }>>,
  Holds<Fits<Actors["machines"]["get"]["response"][200], { machines: Ui.Machine[] }>>,
  Holds<Fits<Actors["get"]["response"][200], { actors: Ui.ActorSummary[] }>>,
  Holds<Fits<Actors["counts"]["get"]["response"][200], { counts: Array<{ kind: string; state: string; count: number }> }>>,
  Holds<Fits<Actors[":kind"][":id"]["get"]["response"][200], Ui.ActorSummary & { transitions: Ui.ActorTransition[] }>>,
  Holds<Fits<Cache["clear-by-key"][":cacheKey"]["delete"]["response"][200], { deleted: number }>>,
];

// Checked by assignment: the conditional form does not resolve these schemas. `events` is left out:
// the route's schema types it as never[] (a union built with .map loses its literals).
declare const webhookCreate: Omit<Ui.WebhookEndpointInput, "events"> & { name: string; url: string };
declare const webhookUpdate: Omit<Ui.WebhookEndpointInput, "events">;
export const webhookBodies: [Webhooks["post"]["body"], Webhooks[":id"]["put"]["body"]] = [webhookCreate, webhookUpdate];

// Guardrail bodies are checked against the TypeBox types of the route's schemas: Elysia's inferred body
// reads their literal unions (scope, check type, stage, action; built with .map) as never.
export type AlertBodies = [Holds<Fits<Ui.AlertRuleInput, RuleCreate>>, Holds<Fits<Ui.AlertChannelInput, ChannelCreate>>];

export type GuardrailBodies = [
  Holds<Fits<Ui.GuardrailInput & { name: string; checks: Ui.GuardrailCheck[] }, GuardrailPolicyInput>>,
  Holds<Fits<Ui.GuardrailInput, GuardrailPolicyUpdate>>,
];
