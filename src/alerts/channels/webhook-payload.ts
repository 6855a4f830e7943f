import type { AlertNotice } from "./notice";

export type AlertWebhookEvent = "alert.firing" | "alert.resolved" | "alert.test";

/** The Standard Webhooks message body, in the shape of the gateway's other events: `{event, created_at, data}`. */
export function alertWebhookPayload(notice: AlertNotice): { event: AlertWebhookEvent; body: string } {
  const event = `alert.${notice.status}` as AlertWebhookEvent;
  const data = {
    rule_id: notice.ruleId,
    rule_name: notice.ruleName,
    severity: notice.severity,
    status: notice.status,
    scope: notice.scope,
    scope_id: notice.scopeId,
    condition: notice.condition,
    figures: notice.figures,
    since: notice.since.toISOString(),
    logs_url: notice.logsUrl,
  };
  return { event, body: JSON.stringify({ event, created_at: notice.at.toISOString(), data }) };
}
