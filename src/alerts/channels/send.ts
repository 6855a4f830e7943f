import { type AttemptOutcome, outcomeOfStatus } from "../../../actors/webhook-delivery";
import { guardedFetch } from "../../outbound/guarded-fetch";
import { type OutboundReach, policyFor } from "../../outbound/reach";
import type { AlertChannel } from "../channel-store";
import { sendMail } from "./email";
import type { AlertNotice } from "./notice";
import { PAGERDUTY_EVENTS_URL, pagerDutyEvent } from "./pagerduty";
import { slackMessage } from "./slack";
import { teamsMessage } from "./teams";
import { type AlertWebhookEvent, alertWebhookPayload } from "./webhook-payload";

const ATTEMPT_TIMEOUT_MS = 10_000;

export interface ChannelDeps {
  reach: OutboundReach;
  /** Queues a signed message for a registered webhook endpoint (delivered and retried as its other messages); answers what happened. */
  sendToEndpoint(endpointId: string, event: AlertWebhookEvent, body: string, messageSubject: string): Promise<string>;
}

export interface SendOutcome {
  /** `permanent`: the receiver refused this message (a 4xx other than 408/429); `retryable`: anything else that failed. */
  outcome: AttemptOutcome;
  detail: string;
}

/** An error's message without the channel's secret in it (a URL a library repeats back). */
const withoutSecret = (message: string, secret: string | undefined) => (secret ? message.replaceAll(secret, "[redacted]") : message);

async function postJson(deps: ChannelDeps, channel: AlertChannel, url: string, body: unknown): Promise<SendOutcome> {
  const response = await guardedFetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS) }, policyFor(deps.reach, channel.settings.allow_private_network));
  const excerpt = (await response.text().catch(() => "")).slice(0, 200);
  return { outcome: outcomeOfStatus(response.status), detail: `HTTP ${response.status}${excerpt ? `: ${excerpt}` : ""}` };
}

function sendBy(deps: ChannelDeps, channel: AlertChannel, notice: AlertNotice): Promise<SendOutcome> {
  switch (channel.type) {
    case "slack":
      return postJson(deps, channel, channel.secret!, slackMessage(notice));
    case "teams":
      return postJson(deps, channel, channel.secret!, teamsMessage(notice));
    case "pagerduty":
      return postJson(deps, channel, channel.settings.events_url ?? PAGERDUTY_EVENTS_URL, pagerDutyEvent(notice, channel.secret!));
    case "email":
      return sendMail(notice, channel.settings.smtp!, channel.secret).then((detail) => ({ outcome: "delivered" as const, detail }));
    case "webhook": {
      const { event, body } = alertWebhookPayload(notice);
      // One message per firing and status: the same notification sent again after a crash is found, not sent twice.
      const subject = `${notice.ruleId}:${notice.status}:${notice.since.getTime()}`;
      return deps.sendToEndpoint(channel.settings.endpoint_id!, event, body, subject).then((detail) => ({ outcome: "delivered" as const, detail }));
    }
  }
}

/** Sends one notification on one channel, once; what went wrong comes back as the outcome, its secret taken out. */
export async function sendNotice(deps: ChannelDeps, channel: AlertChannel, notice: AlertNotice): Promise<SendOutcome> {
  try {
    return await sendBy(deps, channel, notice);
  } catch (error) {
    return { outcome: "retryable", detail: withoutSecret((error as Error).message ?? String(error), channel.secret) };
  }
}
