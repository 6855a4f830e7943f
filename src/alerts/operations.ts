import { badRequest, conflict, notFound } from "../http/errors";
import { checkOptedInAddress, type OutboundReach } from "../outbound/reach";
import { BUILTIN_RULES } from "./builtins";
import type { AlertChannelStore } from "./channel-store";
import { type ChannelDeps, sendNotice } from "./channels/send";
import { type FigureSources, readFigures, spendOf } from "./figures";
import { compileCondition } from "./condition";
import { type BudgetForecast, type BudgetOwner, forecastOf } from "./forecast";
import { type NoticeRule, type NotifierDeps, noticeOf } from "./notifier";
import { type RuleLifecycles, timingsOf } from "./rule-lifecycle";
import type { AlertRule, AlertRuleStore } from "./rule-store";
import type { ChannelCreate, ChannelUpdate, RuleCreate, RuleUpdate } from "./schemas";

export interface AlertOperationDeps extends NotifierDeps, ChannelDeps {
  rules: AlertRuleStore;
  channels: AlertChannelStore;
  lifecycles: RuleLifecycles;
  sources: FigureSources;
  reach: OutboundReach;
  now(): number;
  endpointExists(endpointId: string): boolean;
}

export async function createRule(deps: AlertOperationDeps, input: RuleCreate, builtin: string | null = null): Promise<AlertRule> {
  const rule = await deps.rules.create(input, builtin);
  if (rule.enabled) await deps.lifecycles.start(rule);
  return rule;
}

/** A disabled rule's actor goes (its state is kept in the row); an enabled one is told its timings, or started. */
export async function updateRule(deps: AlertOperationDeps, id: string, input: RuleUpdate): Promise<AlertRule> {
  const before = await deps.rules.require(id);
  const rule = await deps.rules.update(id, input);
  if (!rule.enabled) {
    if (before.enabled) await deps.lifecycles.discard(id);
  } else if (!before.enabled) await deps.lifecycles.start(rule);
  else await deps.lifecycles.tell(id, { type: "configure", at: deps.now(), ...timingsOf(rule) });
  return (await deps.rules.get(id)) ?? rule;
}

export async function removeRule(deps: AlertOperationDeps, id: string): Promise<void> {
  await deps.rules.require(id);
  await deps.lifecycles.discard(id);
  await deps.rules.remove(id);
}

export async function enableBuiltin(deps: AlertOperationDeps, name: string, overrides: Pick<RuleCreate, "scope" | "scope_id" | "channel_ids">): Promise<AlertRule> {
  const builtin = BUILTIN_RULES[name];
  if (!builtin) throw notFound(`no built-in alert rule '${name}' (there are ${Object.keys(BUILTIN_RULES).join(", ")})`);
  const scoped = overrides.scope && overrides.scope !== "global" ? ` (${overrides.scope} ${overrides.scope_id})` : "";
  return createRule(deps, { ...builtin.rule, ...overrides, name: `${builtin.rule.name}${scoped}` }, name);
}

async function enabledRule(deps: AlertOperationDeps, id: string): Promise<AlertRule> {
  const rule = await deps.rules.require(id);
  if (!rule.enabled) throw conflict(`alert rule '${rule.name}' is disabled`);
  return rule;
}

/** Evaluate now, or silence, unsilence or acknowledge: an event for the rule's actor, wherever it runs. */
export async function tellRule(deps: AlertOperationDeps, id: string, event: { type: "evaluate" } | { type: "silence"; until: number } | { type: "unsilence" } | { type: "acknowledge"; by: string }): Promise<void> {
  const rule = await enabledRule(deps, id);
  if (event.type === "acknowledge" && rule.state !== "firing") throw conflict(`alert rule '${rule.name}' is not firing (it is ${rule.state})`);
  await deps.lifecycles.tell(id, { ...event, at: deps.now() });
}

/** The figures the rule's condition reads, as they are now, and whether it holds: what a user checks a rule with. */
export async function previewRule(deps: AlertOperationDeps, id: string) {
  const rule = await deps.rules.require(id);
  const condition = await compileCondition(rule.condition);
  const figures = await readFigures(deps.sources, rule, condition.reads);
  return { holds: condition.holds(figures), figures };
}

/** A channel's addresses, checked as the writer may have them. */
async function checkChannelAddresses(deps: AlertOperationDeps, fields: ChannelUpdate & { type: ChannelCreate["type"] }): Promise<void> {
  const allow = fields.allow_private_network === true;
  if (fields.webhook_url !== undefined) fields.webhook_url = await checkOptedInAddress(fields.webhook_url, allow, deps.reach, "webhook_url");
  if (fields.events_url !== undefined) fields.events_url = await checkOptedInAddress(fields.events_url, allow, deps.reach, "events_url");
  if (fields.smtp !== undefined) await checkOptedInAddress(`http://${fields.smtp.host}:${fields.smtp.port}`, allow, deps.reach, "smtp.host");
  if (fields.endpoint_id !== undefined && !deps.endpointExists(fields.endpoint_id)) throw badRequest(`endpoint_id: no webhook endpoint '${fields.endpoint_id}'`, "endpoint_id");
}

export async function createChannel(deps: AlertOperationDeps, input: ChannelCreate) {
  await checkChannelAddresses(deps, input);
  return deps.channels.create(input);
}

export async function updateChannel(deps: AlertOperationDeps, id: string, input: ChannelUpdate) {
  const current = await deps.channels.require(id);
  await checkChannelAddresses(deps, { ...input, type: current.type, allow_private_network: input.allow_private_network ?? current.settings.allow_private_network });
  return deps.channels.update(id, input);
}

/** Sends a test notification on the channel, as a firing rule would, and answers what the receiver said. */
export async function testChannel(deps: AlertOperationDeps, id: string) {
  const channel = await deps.channels.require(id);
  const at = deps.now();
  const rule: NoticeRule = { id: `test-${channel.id}`, name: "Test notification", severity: "info", condition: "requests > 0", scope: "global", scopeId: null, window: "5m" };
  const { outcome, detail } = await sendNotice(deps, channel, noticeOf(deps, rule, "test", { requests: 1 }, at, at));
  return { delivered: outcome === "delivered", detail };
}

/** Every budget's projected exhaustion, or those of one owner. */
export function forecasts(deps: AlertOperationDeps, query: { level?: string; owner_id?: string }): Promise<BudgetForecast[]> {
  return forecastsWhere(deps.sources, (budget) => (!query.level || budget.level === query.level) && (!query.owner_id || budget.owner_id === query.owner_id));
}

/** The projected exhaustion of the budgets `wanted` picks: what governance's replies carry. */
export function forecastsWhere(sources: FigureSources, wanted: (budget: BudgetOwner) => boolean): Promise<BudgetForecast[]> {
  const now = new Date(sources.now());
  return Promise.all(sources.budgets().filter(wanted).map((budget) => forecastOf(budget, spendOf(sources), now)));
}
