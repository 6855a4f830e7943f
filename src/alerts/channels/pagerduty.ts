import type { AlertSeverity } from "../../db/schema/alerts";
import { type AlertNotice, textOf, titleOf, whereOf } from "./notice";

export const PAGERDUTY_EVENTS_URL = "https://events.pagerduty.com/v2/enqueue";

const PAGERDUTY_SEVERITY: Record<AlertSeverity, "critical" | "warning" | "info"> = { critical: "critical", warning: "warning", info: "info" };

/** One incident per firing: a resolve closes the incident its trigger opened. */
export const dedupKeyOf = (notice: AlertNotice) => `gateway-alert-${notice.ruleId}-${notice.since.getTime()}`;

/** An Events API v2 event: `trigger` with its payload while firing (a test too), `resolve` once resolved. */
export function pagerDutyEvent(notice: AlertNotice, routingKey: string) {
  const dedup_key = dedupKeyOf(notice);
  if (notice.status === "resolved") return { routing_key: routingKey, event_action: "resolve", dedup_key };
  return {
    routing_key: routingKey,
    event_action: "trigger",
    dedup_key,
    payload: {
      summary: `${titleOf(notice)} on ${whereOf(notice)}`.slice(0, 1024),
      source: "ai-gateway",
      severity: PAGERDUTY_SEVERITY[notice.severity],
      timestamp: notice.since.toISOString(),
      component: whereOf(notice),
      class: notice.condition.slice(0, 256),
      custom_details: { ...notice.figures, condition: notice.condition, rule_id: notice.ruleId, details: textOf(notice) },
    },
    links: [{ href: notice.logsUrl, text: "The gateway's logs" }],
  };
}
