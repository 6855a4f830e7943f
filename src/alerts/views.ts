import type { AlertChannel } from "./channel-store";
import { type AlertRule, ruleFieldsOf } from "./rule-store";

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** A rule as the API answers it. */
export function ruleView(rule: AlertRule, logsUrl: string) {
  return {
    id: rule.id,
    ...ruleFieldsOf(rule),
    builtin: rule.builtin,
    state: rule.state,
    acknowledged: rule.state === "firing" && rule.acknowledgedBy !== null,
    state_since: iso(rule.stateSince),
    last_evaluated_at: iso(rule.lastEvaluatedAt),
    figures: rule.lastFigures ?? {},
    silenced_until: iso(rule.silencedUntil),
    acknowledged_by: rule.acknowledgedBy,
    acknowledged_at: iso(rule.acknowledgedAt),
    logs_url: logsUrl,
    created_at: rule.createdAt.toISOString(),
    updated_at: rule.updatedAt.toISOString(),
  };
}

/** Where a channel sends, without its secret. */
function targetOf(channel: AlertChannel): string {
  const { settings } = channel;
  if (channel.type === "email") return settings.smtp!.to.join(", ");
  if (channel.type === "webhook") return `webhook endpoint ${settings.endpoint_id}`;
  if (channel.type === "pagerduty") return new URL(settings.events_url ?? "https://events.pagerduty.com").host;
  return settings.host ?? "";
}

/** A channel as the API answers it: never its webhook URL, routing key or password. */
export function channelView(channel: AlertChannel) {
  const { settings } = channel;
  return {
    id: channel.id,
    name: channel.name,
    type: channel.type,
    target: targetOf(channel),
    ...(settings.events_url !== undefined && { events_url: settings.events_url }),
    ...(settings.smtp !== undefined && { smtp: settings.smtp }),
    ...(settings.endpoint_id !== undefined && { endpoint_id: settings.endpoint_id }),
    allow_private_network: settings.allow_private_network,
    created_at: channel.createdAt.toISOString(),
    updated_at: channel.updatedAt.toISOString(),
  };
}
