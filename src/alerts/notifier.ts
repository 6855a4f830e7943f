import type { AlertRuleContext } from "../../actors/alert-rule";
import { periodMs } from "../logs/time-window";
import type { AlertChannel, AlertChannelStore } from "./channel-store";
import type { AlertNotice } from "./channels/notice";
import { type ChannelDeps, sendNotice } from "./channels/send";
import { scopeQuery } from "./figures";
import type { AlertRule, AlertRuleStore } from "./rule-store";

export interface NotifierDeps extends ChannelDeps {
  rules: AlertRuleStore;
  channels: AlertChannelStore;
  /** Where the dashboard is, for the link to the logs; the link is relative when unset. */
  dashboardUrl(): string | undefined;
}

/** What a notification tells of its rule. */
export type NoticeRule = Pick<AlertRule, "id" | "name" | "severity" | "condition" | "scope" | "scopeId" | "window">;

/** The dashboard's logs over the rule's scope, from a window before it fired to now. */
export function logsUrlOf(deps: Pick<NotifierDeps, "dashboardUrl">, rule: NoticeRule, since: number, at: number): string {
  const query = new URLSearchParams({ ...scopeQuery(rule), start_time: new Date(since - periodMs(rule.window)).toISOString(), end_time: new Date(at).toISOString() });
  return `${(deps.dashboardUrl() ?? "").replace(/\/+$/, "")}/ui/logs?${query}`;
}

export function noticeOf(deps: Pick<NotifierDeps, "dashboardUrl">, rule: NoticeRule, status: AlertNotice["status"], figures: Record<string, number>, since: number, at: number): AlertNotice {
  return {
    status,
    ruleId: rule.id,
    ruleName: rule.name,
    severity: rule.severity,
    condition: rule.condition,
    scope: rule.scope,
    scopeId: rule.scopeId,
    figures,
    since: new Date(since),
    at: new Date(at),
    logsUrl: logsUrlOf(deps, rule, since, at),
  };
}

async function sendAndRecord(deps: NotifierDeps, channel: AlertChannel, notice: AlertNotice): Promise<void> {
  const outcome = await sendNotice(deps, channel, notice);
  const note = `${channel.type} '${channel.name}': ${outcome.delivered ? "sent" : "not sent"} (${outcome.detail})`.slice(0, 500);
  if (!outcome.delivered) console.error(`alert rule ${notice.ruleId}: ${note}`);
  await deps.rules.recordHistory({ ruleId: notice.ruleId, at: notice.at, fromState: null, toState: notice.status, figures: null, note });
}

/**
 * Tells every channel of the rule that it fires or resolved, each once (a channel that fails is
 * noted in the history, not retried: a webhook endpoint channel retries as its deliveries do);
 * while the rule is silenced nothing is sent, and the history says so.
 */
export async function notifyChannels(deps: NotifierDeps, status: "firing" | "resolved", context: AlertRuleContext, at: number): Promise<void> {
  const rule = await deps.rules.get(context.ruleId);
  if (!rule) return;
  if (context.silencedUntil !== undefined && context.silencedUntil > at) {
    const note = `silenced until ${new Date(context.silencedUntil).toISOString()}: not notified`;
    await deps.rules.recordHistory({ ruleId: rule.id, at: new Date(at), fromState: null, toState: status, figures: null, note });
    return;
  }
  const notice = noticeOf(deps, rule, status, context.figures, context.firingSince ?? at, at);
  for (const channelId of rule.channelIds) {
    const channel = await deps.channels.get(channelId);
    if (channel) await sendAndRecord(deps, channel, notice);
  }
}
