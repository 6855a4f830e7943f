import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startAlertReceivers, startSmtpServer } from "../support/alert-receivers";
import { eventually } from "../support/eventually";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { TestClock } from "../support/test-clock";
import { createEndpoint } from "../support/webhook-endpoints";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { createChannel, createRule, evaluateNow, historyOf, json, loggedRequests, ruleOf } from "./support";

const SLACK_SECRET = "B0SLACKHOOK/xoxSecretPart";
const TEAMS_SECRET = "workflows/teams-sig-secret";
const ROUTING_KEY = "R0UTINGKEY-secret-0123456789";
const SMTP_PASSWORD = "smtp-pass-secret";

let upstream: MockOpenAI;
let receivers: ReturnType<typeof startAlertReceivers>;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let webhookReceiver: WebhookReceiver;
let gw: TestGateway;
const clock = new TestClock();
const channels: Record<string, string> = {};

beforeAll(async () => {
  upstream = startMockOpenAI();
  receivers = startAlertReceivers();
  smtp = await startSmtpServer();
  webhookReceiver = startWebhookReceiver();
  gw = await startGateway(
    {
      providers: { openai: { keys: [{ id: "k1", value: "sk-upstream" }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } } },
      alerts: { dashboard_url: "https://gateway.example.com/" },
    },
    { runtime: { actorClock: clock } },
  );
  channels.slack = (await createChannel(gw, { name: "ops slack", type: "slack", webhook_url: `${receivers.url}/slack/${SLACK_SECRET}` })).id;
  channels.teams = (await createChannel(gw, { name: "ops teams", type: "teams", webhook_url: `${receivers.url}/teams/${TEAMS_SECRET}` })).id;
  channels.pagerduty = (await createChannel(gw, { name: "on call", type: "pagerduty", routing_key: ROUTING_KEY, events_url: `${receivers.url}/pagerduty/v2/enqueue` })).id;
  channels.email = (await createChannel(gw, { name: "ops mail", type: "email", smtp: { host: "127.0.0.1", port: smtp.port, username: "alerts", password: SMTP_PASSWORD, from: "gateway@example.com", to: ["ops@example.com"] } })).id;
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
  receivers.stop();
  await smtp.stop();
  webhookReceiver.stop();
});

const chat = (content: string) =>
  fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }] }) });

describe("rules are checked when written", () => {
  test("a condition that is not CEL, or reads an unknown figure, is a 400 naming condition", async () => {
    await expectGatewayError(await gw.admin("/api/alerts/rules", { method: "POST", json: { name: "bad", condition: "error_rate >" } }), 400, { param: "condition" });
    const unknown = await expectGatewayError(await gw.admin("/api/alerts/rules", { method: "POST", json: { name: "bad", condition: "latency_p42 > 1" } }), 400, { param: "condition" });
    expect(unknown.error.message).toContain("latency_p42");
    await expectGatewayError(await gw.admin("/api/alerts/rules", { method: "POST", json: { name: "bad", condition: "error_rate" } }), 400, { param: "condition" });
  });

  test("a scoped rule needs scope_id, a channel its secret, a rule only known channels", async () => {
    await expectGatewayError(await gw.admin("/api/alerts/rules", { method: "POST", json: { name: "bad", condition: "requests > 1", scope: "provider" } }), 400, { param: "scope_id" });
    await expectGatewayError(await gw.admin("/api/alerts/channels", { method: "POST", json: { name: "bad", type: "slack" } }), 400, { param: "webhook_url" });
    await expectGatewayError(await gw.admin("/api/alerts/rules", { method: "POST", json: { name: "bad", condition: "requests > 1", channel_ids: ["nope"] } }), 400, { param: "channel_ids" });
  });

  test("no reply shows a channel's webhook URL, routing key or password", async () => {
    const listed = await (await gw.admin("/api/alerts/channels")).text();
    for (const secret of [SLACK_SECRET, TEAMS_SECRET, ROUTING_KEY, SMTP_PASSWORD]) expect(listed).not.toContain(secret);
    expect(JSON.parse(listed).channels.map((channel: { target: string }) => channel.target)).toContain("ops@example.com");
  });
});

describe("a rule fires into every channel, and resolves", () => {
  let ruleId: string;

  test("errors of a provider past the threshold fire the rule: Slack blocks, a Teams card, a PagerDuty trigger, a mail", async () => {
    const rule = await createRule(gw, { name: "openai failing", condition: "requests >= 2 && error_rate > 0.4", scope: "provider", scope_id: "openai", severity: "critical", channel_ids: Object.values(channels) });
    ruleId = rule.id;
    upstream.faults.push({ kind: "status", status: 500 }, { kind: "status", status: 500 });
    await chat("one");
    await chat("two");
    await loggedRequests(gw, "openai", 2);
    expect((await evaluateNow(gw, ruleId, clock)).state).toBe("firing");

    const [slack] = await eventually(async () => receivers.to("/slack"), (posts) => posts.length >= 1);
    const blocks = slack!.body.blocks as Array<Record<string, unknown>>;
    expect(slack!.body.text).toContain("Firing: openai failing");
    expect(blocks.map((block) => block.type)).toEqual(["header", "section", "section", "actions"]);
    const fields = JSON.stringify(blocks[2]);
    expect(fields).toContain("error_rate = 1");
    expect(fields).toContain("provider openai");
    const button = (blocks[3]!.elements as Array<{ url: string }>)[0]!;
    expect(button.url).toStartWith("https://gateway.example.com/ui/logs?providers=openai&start_time=");

    const [teams] = await eventually(async () => receivers.to("/teams"), (posts) => posts.length >= 1);
    const attachment = (teams!.body.attachments as Array<{ contentType: string; content: Record<string, unknown> }>)[0]!;
    expect(teams!.body.type).toBe("message");
    expect(attachment.contentType).toBe("application/vnd.microsoft.card.adaptive");
    expect(attachment.content).toMatchObject({ type: "AdaptiveCard", version: "1.4" });
    expect(JSON.stringify(attachment.content.body)).toContain("requests = 2");

    const [trigger] = await eventually(async () => receivers.to("/pagerduty"), (posts) => posts.length >= 1);
    expect(trigger!.body).toMatchObject({ routing_key: ROUTING_KEY, event_action: "trigger", payload: { severity: "critical", source: "ai-gateway" } });
    expect((trigger!.body.payload as { summary: string }).summary).toContain("openai failing");

    const [mail] = await eventually(async () => smtp.mails, (mails) => mails.length >= 1);
    expect(mail).toMatchObject({ from: "gateway@example.com", to: ["ops@example.com"], user: "alerts", password: SMTP_PASSWORD });
    expect(mail!.raw).toContain("[critical] Firing: openai failing on provider openai");
    expect(mail!.text).toContain("Figures: requests = 2, error_rate = 1");
    expect(mail!.text).toContain("Logs: https://gateway.example.com/ui/logs?providers=openai&start_time=");

    const history = await historyOf(gw, ruleId);
    expect(history.history.filter((row) => row.note?.includes(": sent")).length).toBe(4);
  });

  test("once the errors are a smaller share the rule resolves: PagerDuty resolves the same incident", async () => {
    for (const text of ["three", "four", "five"]) expect((await chat(text)).status).toBe(200);
    await loggedRequests(gw, "openai", 5);
    expect((await evaluateNow(gw, ruleId, clock)).state).toBe("resolved");
    const pagerduty = await eventually(async () => receivers.to("/pagerduty"), (posts) => posts.length >= 2);
    expect(pagerduty[1]!.body).toEqual({ routing_key: ROUTING_KEY, event_action: "resolve", dedup_key: pagerduty[0]!.body.dedup_key });
    const slack = await eventually(async () => receivers.to("/slack"), (posts) => posts.length >= 2);
    expect(slack[1]!.body.text).toContain("Resolved: openai failing");
    const states = (await historyOf(gw, ruleId)).history.filter((row) => row.note === null).map((row) => `${row.from}->${row.to}`);
    expect(states).toEqual(["firing->resolved", "ok->firing"]);
  });
});

describe("silence, acknowledge, the evaluation timer and a restart", () => {
  let ruleId: string;

  test("a silenced rule fires without notifying, and says so in its history", async () => {
    expect((await chat("traffic")).status).toBe(200);
    await loggedRequests(gw, "openai", 1);
    const rule = await createRule(gw, { name: "any traffic", condition: "requests >= 1", interval_seconds: 60, channel_ids: [channels.slack] });
    ruleId = rule.id;
    const until = new Date(clock.now() + 3_600_000).toISOString();
    await json(gw.admin(`/api/alerts/rules/${ruleId}/silence`, { method: "POST", json: { until } }));
    await eventually(() => ruleOf(gw, ruleId), (read) => read.silenced_until !== null);
    const slackBefore = receivers.to("/slack").length;
    expect((await evaluateNow(gw, ruleId, clock)).state).toBe("firing");
    const history = await eventually(() => historyOf(gw, ruleId), (read) => read.history.some((row) => row.note?.startsWith("silenced")));
    expect(history.history.map((row) => row.note)).toContain(`silenced until ${until}: not notified`);
    expect(receivers.to("/slack").length).toBe(slackBefore);
  });

  test("a user acknowledges a firing rule; a rule that is not firing cannot be", async () => {
    await json(gw.admin(`/api/alerts/rules/${ruleId}/acknowledge`, { method: "POST" }));
    const acknowledged = await eventually(() => ruleOf(gw, ruleId), (read) => read.acknowledged);
    expect(acknowledged).toMatchObject({ state: "firing", acknowledged: true, acknowledged_by: "setup:setup" });
    const quiet = await createRule(gw, { name: "never", condition: "requests > 1000000" });
    await expectGatewayError(await gw.admin(`/api/alerts/rules/${quiet.id}/acknowledge`, { method: "POST" }), 409);
  });

  test("the rule is evaluated again when its interval has passed on the clock", async () => {
    const before = (await ruleOf(gw, ruleId)).last_evaluated_at!;
    await clock.timerSet((delay) => delay > 0 && delay <= 60_000);
    clock.increment(60_000);
    const after = await eventually(() => ruleOf(gw, ruleId), (read) => read.last_evaluated_at !== before);
    expect(Date.parse(after.last_evaluated_at!) - Date.parse(before)).toBe(60_000);
  });

  test("after a restart a firing rule stays firing, acknowledged, and notifies nobody again", async () => {
    await json(gw.admin(`/api/alerts/rules/${ruleId}/silence`, { method: "DELETE" }));
    await eventually(() => ruleOf(gw, ruleId), (read) => read.silenced_until === null);
    const slackBefore = receivers.to("/slack").length;
    await gw.stop();
    gw = await gw.restart();
    const rule = await evaluateNow(gw, ruleId, clock);
    expect(rule).toMatchObject({ state: "firing", acknowledged: true });
    expect(receivers.to("/slack").length).toBe(slackBefore);
  });
});

describe("a registered webhook endpoint as a channel", () => {
  test("a test notification arrives signed the Standard Webhooks way, as alert.test", async () => {
    const endpoint = await createEndpoint(gw, webhookReceiver, "/alerts");
    const channel = await createChannel(gw, { name: "signed", type: "webhook", endpoint_id: endpoint.id });
    const outcome = await json<{ delivered: boolean; detail: string }>(gw.admin(`/api/alerts/channels/${channel.id}/test`, { method: "POST" }));
    expect(outcome).toMatchObject({ delivered: true });
    const [delivery] = await webhookReceiver.arrivals(1);
    expect(delivery!.payload).toMatchObject({ event: "alert.test", data: { rule_name: "Test notification", status: "test", figures: { requests: 1 } } });
    await expectGatewayError(await gw.admin("/api/alerts/channels", { method: "POST", json: { name: "nowhere", type: "webhook", endpoint_id: "nope" } }), 400, { param: "endpoint_id" });
  });
});

describe("budgets: built-in rules and the spend forecast", () => {
  let key: { id: string; value: string };

  test("the forecast projects a budget's exhaustion from the last hour's and the last day's spend", async () => {
    const created = await json<{ virtual_key: { id: string; value: string } }>(gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name: "forecast", budgets: [{ max_limit: 0.0001, reset_duration: "1M" }] } }), 201);
    key = created.virtual_key;
    for (const text of ["spend one", "spend two"]) {
      const reply = await fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key.value}` }, body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: text }] }) });
      expect(reply.status).toBe(200);
    }
    const spent = await eventually(
      () => json<{ forecasts: Array<{ current_usage: number; max_limit: number; hours_left: number | null; short_window: { spend_per_hour: number; exhausted_at: string | null }; long_window: { spend_per_hour: number; exhausted_at: string | null } }> }>(gw.admin(`/api/alerts/forecast?level=virtual_key&owner_id=${key.id}`)),
      (read) => read.forecasts[0]!.short_window.spend_per_hour > 0 && read.forecasts[0]!.current_usage > 0,
    );
    const [forecast] = spent.forecasts;
    expect(forecast!.short_window.spend_per_hour).toBeCloseTo(forecast!.long_window.spend_per_hour * 24, 10);
    expect(forecast!.hours_left!).toBeCloseTo((forecast!.max_limit - forecast!.current_usage) / forecast!.short_window.spend_per_hour, 6);
    expect(Date.parse(forecast!.short_window.exhausted_at!)).toBeGreaterThan(Date.now());
    expect(Date.parse(forecast!.long_window.exhausted_at!)).toBeGreaterThan(Date.parse(forecast!.short_window.exhausted_at!));
  });

  test("a built-in budget rule on the key reads its budget; projected_exhaustion_hours is the forecast's", async () => {
    const builtin = await json<{ id: string; name: string }>(gw.admin("/api/alerts/builtins/budget_80", { method: "POST", json: { scope: "virtual_key", scope_id: key.id } }), 201);
    expect(builtin.name).toBe(`Budget 80 % used (virtual_key ${key.id})`);
    const used = await json<{ holds: boolean; figures: Record<string, number> }>(gw.admin(`/api/alerts/rules/${builtin.id}/preview`));
    const [forecast] = (await json<{ forecasts: Array<{ current_usage: number; max_limit: number; hours_left: number }> }>(gw.admin(`/api/alerts/forecast?owner_id=${key.id}`))).forecasts;
    expect(used).toEqual({ holds: false, figures: { budget_used_fraction: forecast!.current_usage / forecast!.max_limit } });
    const soon = await createRule(gw, { name: "runs out within a week", condition: "projected_exhaustion_hours < 168.0", scope: "virtual_key", scope_id: key.id, enabled: false });
    const preview = await json<{ holds: boolean; figures: Record<string, number> }>(gw.admin(`/api/alerts/rules/${soon.id}/preview`));
    expect(preview.figures.projected_exhaustion_hours).toBeCloseTo(forecast!.hours_left, 6);
    expect(preview.holds).toBe(true);
  });

  test("the team, customer and key replies of governance carry the same forecast as /api/alerts/forecast", async () => {
    const customer = (await json<{ customer: { id: string } }>(gw.admin("/api/governance/customers", { method: "POST", json: { name: "forecast customer", budgets: [{ max_limit: 0.0002, reset_duration: "1M" }] } }), 201)).customer;
    const team = (await json<{ team: { id: string } }>(gw.admin("/api/governance/teams", { method: "POST", json: { name: "forecast team", customer_id: customer.id, budgets: [{ max_limit: 0.0003, reset_duration: "1M" }] } }), 201)).team;
    const member = (await json<{ virtual_key: { id: string; value: string } }>(gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name: "forecast member", team_id: team.id, budgets: [{ max_limit: 0.0004, reset_duration: "1M" }] } }), 201)).virtual_key;
    const reply = await fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${member.value}` }, body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "spend for the team" }] }) });
    expect(reply.status).toBe(200);
    type Forecast = { level: string; owner_id: string; current_usage: number; hours_left: number | null; short_window: { spend_per_hour: number; exhausted_at: string | null }; long_window: { spend_per_hour: number; exhausted_at: string | null } };
    // Everything but the dates, which move with the instant each reply was computed at.
    const steady = ({ short_window, long_window, ...rest }: Forecast) => ({ ...rest, short: short_window.spend_per_hour, long: long_window.spend_per_hour });
    const detail = { team: `/api/governance/teams/${team.id}`, customer: `/api/governance/customers/${customer.id}`, virtual_key: `/api/governance/virtual-keys/${member.id}` };
    const list = { team: "/api/governance/teams?limit=1000", customer: "/api/governance/customers?limit=1000", virtual_key: "/api/governance/virtual-keys?limit=1000" };
    const owners = { team: team.id, customer: customer.id, virtual_key: member.id };
    for (const level of ["team", "customer", "virtual_key"] as const) {
      const alerted = await eventually(
        () => json<{ forecasts: Forecast[] }>(gw.admin(`/api/alerts/forecast?level=${level}&owner_id=${owners[level]}`)),
        (read) => read.forecasts.length === 1 && read.forecasts[0]!.short_window.spend_per_hour > 0 && read.forecasts[0]!.current_usage > 0,
      );
      const [expected] = alerted.forecasts;
      const one = Object.values(await json<Record<string, { forecasts: Forecast[] }>>(gw.admin(detail[level])))[0]!;
      const page = await json<Record<string, Array<{ id: string; forecasts: Forecast[] }>>>(gw.admin(list[level]));
      const row = Object.values(page).find(Array.isArray)!.find((entry) => entry.id === owners[level])!;
      for (const answered of [one.forecasts, row.forecasts]) {
        expect(answered.map(steady)).toEqual([steady(expected!)]);
        expect(Math.abs(Date.parse(answered[0]!.short_window.exhausted_at!) - Date.parse(expected!.short_window.exhausted_at!))).toBeLessThan(60_000);
      }
    }
  });
});

describe("a channel that fails", () => {
  test("is tried again with backoff, across a restart, until it takes the notification: delivered once, each attempt in the history", async () => {
    const flaky = await createChannel(gw, { name: "flaky slack", type: "slack", webhook_url: `${receivers.url}/flaky-slack/${SLACK_SECRET}` });
    receivers.failNext("/flaky-slack", 2);
    expect((await chat("flaky")).status).toBe(200);
    await loggedRequests(gw, "openai", 1);
    const rule = await createRule(gw, { name: "flaky channel", condition: "requests >= 1", channel_ids: [flaky.id] });
    expect((await evaluateNow(gw, rule.id, clock)).state).toBe("firing");
    const notes = async () => (await historyOf(gw, rule.id)).history.map((row) => row.note).filter((note) => note?.startsWith("slack"));
    expect(await eventually(notes, (found) => found.length === 1)).toEqual(["slack 'flaky slack': not sent (HTTP 500: internal_error); attempt 1, next in 30 s"]);

    await clock.timerSet(30_000);
    clock.increment(30_000);
    expect((await eventually(notes, (found) => found.length === 2))[0]).toBe("slack 'flaky slack': not sent (HTTP 500: internal_error); attempt 2, next in 60 s");

    // The wait for the third attempt is kept across a restart: neither forgotten nor cut short.
    await clock.timerSet(60_000);
    await gw.stop();
    gw = await gw.restart();
    await clock.timerSet(60_000);
    expect(receivers.to("/flaky-slack")).toHaveLength(0);
    clock.increment(60_000);
    expect((await eventually(notes, (found) => found.length === 3))[0]).toBe("slack 'flaky slack': sent (HTTP 200: ok)");
    expect(receivers.refused.filter((post) => post.path.startsWith("/flaky-slack"))).toHaveLength(2);
    const [delivered] = receivers.to("/flaky-slack");
    expect(delivered!.body.text).toContain("Firing: flaky channel");

    // Nothing is left to send: later time brings no other copy.
    clock.increment(600_000);
    await evaluateNow(gw, rule.id, clock);
    expect(receivers.to("/flaky-slack")).toHaveLength(1);
    expect(await notes()).toHaveLength(3);
  }, 30_000);
});
