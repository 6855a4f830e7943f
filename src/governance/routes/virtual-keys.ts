import { Elysia, t } from "elysia";
import type { VirtualKeyRow } from "../../db/schema";
import { authenticateCaller } from "../caller";
import { budgetUsage, limitsOfCaller, rateLimitUsage } from "../limits/usage-report";
import type { LimitCounters } from "../limits/limit-counters";
import { ListQuery, VirtualKeyCreateInput, VirtualKeyUpdateInput } from "../schemas";
import type { Organization } from "../stores/organization";
import type { VirtualKeyStore } from "../stores/virtual-keys";
import { Deleted, replies } from "../../http/replies";
import { virtualKeyIssuedExample, virtualKeyListExample } from "../examples";
import { Quota, SessionSpentList, VirtualKeyIssued, VirtualKeyList, VirtualKeyReply, VirtualKeyWritten } from "../replies";
import { reachedLimit, type SessionSpend } from "../limits/session-spend";
import { type ForecastsOf, forecastsReadableBy, withForecasts, withForecastsOf } from "./forecasts";

const IdParams = t.Object({ id: t.String() });

/** A key as the API shows it: never its value, except once, on create and rotate. */
function virtualKeyView(row: VirtualKeyRow, organization: Organization) {
  const team = row.teamId ? organization.teams.get(row.teamId) : undefined;
  const customer = row.customerId ? organization.customers.get(row.customerId) : undefined;
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    is_active: row.isActive,
    key_prefix: row.keyPrefix,
    team_id: row.teamId,
    customer_id: row.customerId,
    team: team ? { id: team.id, name: team.name } : null,
    customer: customer ? { id: customer.id, name: customer.name } : null,
    provider_configs: row.providerConfigs,
    budgets: row.budgets,
    rate_limit: row.rateLimit,
    mcp_configs: row.mcpConfigs,
    mcp_tool_search: row.mcpToolSearch ?? null,
    agent_grants: row.agentGrants,
    allowed_prompts: row.allowedPrompts,
    session_budgets: row.sessionBudgets ?? null,
    resumable_streams: row.resumableStreams,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** /api/governance/virtual-keys, and the quota a key can read about itself. */
/** The key's sessions with what each spent, most recent first. */
async function sessionsView(row: VirtualKeyRow, sessions: SessionSpend) {
  const budget = row.sessionBudgets ?? null;
  return {
    session_budgets: budget,
    sessions: (await sessions.list(row.id)).map(([id, spent]) => ({
      session_id: id,
      cost: spent.cost,
      tokens: spent.tokens,
      requests: spent.requests,
      last_request_at: new Date(spent.lastAt).toISOString(),
      exceeded: (budget && reachedLimit(budget, spent.cost, spent.tokens)) ?? null,
    })),
  };
}

export function virtualKeyRoutes(keys: VirtualKeyStore, organization: Organization, counters: LimitCounters, sessions: SessionSpend, forecastsOf: ForecastsOf) {
  const readable = forecastsReadableBy(forecastsOf);
  const view = (row: VirtualKeyRow, request: Request) => withForecastsOf("virtual_key", virtualKeyView(row, organization), readable(request));
  return (
    new Elysia({ name: "governance-virtual-keys", prefix: "/virtual-keys" })
      .get(
        "/",
        async ({ query, request }) => {
          const { rows, ...page } = keys.keys.page(query);
          return { virtual_keys: await withForecasts("virtual_key", rows.map((row) => virtualKeyView(row, organization)), readable(request)), ...page };
        },
        { query: ListQuery, ...replies({ 200: VirtualKeyList }, { summary: "List virtual keys", description: "A page of virtual keys, without their values; `search` matches the name.", examples: { 200: virtualKeyListExample } }) },
      )
      .post(
        "/",
        async ({ body, set, request }) => {
          const { row, value } = await keys.create(body);
          set.status = 201;
          return { message: "Virtual key created successfully", virtual_key: { ...(await view(row, request)), value } };
        },
        { body: VirtualKeyCreateInput, ...replies({ 201: VirtualKeyIssued }, { summary: "Create a virtual key", description: "Its value is in this reply once; the gateway keeps only its hash.", examples: { 201: virtualKeyIssuedExample } }) },
      )
      // Authenticated by the virtual key alone (spec 5): what is left of every budget and limit it answers to.
      .get("/quota", ({ request }) => {
        const caller = authenticateCaller(request.headers, keys, organization, true)!;
        const limits = limitsOfCaller(caller);
        return { virtual_key: { id: caller.key.id, name: caller.key.name }, budgets: budgetUsage(limits, counters), rate_limits: rateLimitUsage(limits, counters) };
      }, replies({ 200: Quota }, { summary: "Get the calling virtual key's quota", description: "Authenticated by the virtual key itself (`Authorization: Bearer sk-gw-…`): what is left of every budget and rate limit it answers to." }))
      .get("/:id", async ({ params, request }) => ({ virtual_key: await view(keys.keys.require(params.id), request) }), { params: IdParams, ...replies({ 200: VirtualKeyReply }, { summary: "Get a virtual key" }) })
      .get("/:id/sessions", ({ params }) => sessionsView(keys.keys.require(params.id), sessions), {
        params: IdParams,
        ...replies({ 200: SessionSpentList }, { summary: "List a virtual key's sessions", description: "What each session (conversation id) of the key spent against its `session_budgets`, as counted in this node's memory since it started, or by every node on a shared database." }),
      })
      .put("/:id", async ({ params, body, request }) => ({ message: "Virtual key updated successfully", virtual_key: await view(await keys.update(params.id, body), request) }), { params: IdParams, body: VirtualKeyUpdateInput, ...replies({ 200: VirtualKeyWritten }, { summary: "Update a virtual key", description: "Omitted fields keep their value; `null` clears `team_id`, `customer_id`, `rate_limit` and `session_budgets`." }) })
      .post(
        "/:id/rotate",
        async ({ params, request }) => {
          const { row, value } = await keys.rotate(params.id);
          return { message: "Virtual key rotated successfully", virtual_key: { ...(await view(row, request)), value } };
        },
        { params: IdParams, ...replies({ 200: VirtualKeyIssued }, { summary: "Rotate a virtual key", description: "A new value, answered once; the old one stops working at once." }) },
      )
      .delete(
        "/:id",
        async ({ params }) => {
          await keys.remove(params.id);
          return { message: "Virtual key deleted successfully" };
        },
        { params: IdParams, ...replies({ 200: Deleted }, { summary: "Delete a virtual key" }) },
      )
  );
}
