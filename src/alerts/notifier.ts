import type { NotificationAttemptInput, NotificationAttemptResult } from "../../actors/alert-notification";
import type { AlertRuleContext } from "../../actors/alert-rule";
import { periodMs } from "../logs/time-window";
import type { AlertChannelStore } from "./channel-store";
import type { AlertNotice } from "./channels/notice";
import { type ChannelDeps, sendNotice } from "./channels/send";
import { scopeQuery } from "./figures";
import { type NotificationDeliveries, restoredNotice, storedNotice } from "./notification-deliveries";
import type { AlertRule, AlertRuleStore } from "./rule-store";

export interface NotifierDeps extends ChannelDeps {
  rules: AlertRuleStore;
  channels: AlertChannelStore;
  /** Where the dashboard is, for the link to the logs; the link is relative when unset. */
  dashboardUrl(): string | undefined;
  now(): number;
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

/** What the history says after an attempt's outcome: nothing more when sent, else whether another attempt follows. */
function followUp(input: NotificationAttemptInput, outcome: NotificationAttemptResult["outcome"]): string {
  if (outcome === "delivered") return "";
  if (outcome === "retryable" && input.retryInMs !== null) return `; attempt ${input.attempt}, next in ${Math.round(input.retryInMs / 1000)} s`;
  return `; attempt ${input.attempt}, given up`;
}

/** One attempt of a notification on its channel, its outcome written to the rule's history (shown on the Alerts page). */
export async function attemptNotification(deps: NotifierDeps, input: NotificationAttemptInput): Promise<NotificationAttemptResult> {
  const notice = restoredNotice(input.facts);
  const channel = await deps.channels.get(input.channelId);
  const { outcome, detail } = channel ? await sendNotice(deps, channel, notice) : { outcome: "permanent" as const, detail: "the channel was deleted" };
  const what = channel ? `${channel.type} '${channel.name}'` : `channel ${input.channelId}`;
  const note = `${`${what}: ${outcome === "delivered" ? "sent" : "not sent"} (${detail}`.slice(0, 400)})${followUp(input, outcome)}`;
  if (outcome !== "delivered") console.error(`alert rule ${notice.ruleId}: ${note}`);
  const finishedAt = deps.now();
  await deps.rules.recordHistory({ ruleId: notice.ruleId, at: new Date(finishedAt), fromState: null, toState: notice.status, figures: null, note });
  return { outcome, detail, finishedAt };
}

/**
 * Tells every channel of the rule that it fires or resolved: one durable notification each,
 * retried with backoff while its channel fails (a webhook endpoint channel's message is then
 * retried as its deliveries are); while the rule is silenced nothing is sent, and the history
 * says so.
 */
export async function notifyChannels(deps: NotifierDeps & { notifications: NotificationDeliveries }, status: "firing" | "resolved", context: AlertRuleContext, at: number): Promise<void> {
  const rule = await deps.rules.get(context.ruleId);
  if (!rule) return;
  if (context.silencedUntil !== undefined && context.silencedUntil > at) {
    const note = `silenced until ${new Date(context.silencedUntil).toISOString()}: not notified`;
    await deps.rules.recordHistory({ ruleId: rule.id, at: new Date(at), fromState: null, toState: status, figures: null, note });
    return;
  }
  const facts = storedNotice({ ...noticeOf(deps, rule, status, context.figures, context.firingSince ?? at, at), status });
  for (const channelId of rule.channelIds) await deps.notifications.send(channelId, facts);
}
