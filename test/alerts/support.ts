import { expect } from "bun:test";
import { eventually } from "../support/eventually";
import type { TestGateway } from "../support/gateway";
import type { TestClock } from "../support/test-clock";

export interface RuleBody {
  id: string;
  name: string;
  state: string;
  acknowledged: boolean;
  acknowledged_by: string | null;
  figures: Record<string, number>;
  last_evaluated_at: string | null;
  silenced_until: string | null;
  logs_url: string;
}

export interface HistoryBody {
  history: Array<{ from: string | null; to: string; note: string | null; figures: Record<string, number> | null }>;
}

export async function json<T>(response: Response | Promise<Response>, status = 200): Promise<T> {
  const settled = await response;
  const text = await settled.text();
  expect(settled.status, text).toBe(status);
  return JSON.parse(text) as T;
}

export const createChannel = (gw: TestGateway, body: Record<string, unknown>) => json<{ id: string }>(gw.admin("/api/alerts/channels", { method: "POST", json: { allow_private_network: true, ...body } }), 201);

export const createRule = (gw: TestGateway, body: Record<string, unknown>) => json<RuleBody>(gw.admin("/api/alerts/rules", { method: "POST", json: { interval_seconds: 3_600, window: "1h", ...body } }), 201);

export const ruleOf = (gw: TestGateway, id: string) => json<RuleBody>(gw.admin(`/api/alerts/rules/${id}`));

export const historyOf = (gw: TestGateway, id: string) => json<HistoryBody>(gw.admin(`/api/alerts/rules/${id}/history`));

/** Asks for an evaluation now and waits until the rule shows one made after the ask (a test clock moves a second first, so the two differ). */
export async function evaluateNow(gw: TestGateway, id: string, clock?: TestClock, timeoutMs = 5_000): Promise<RuleBody> {
  clock?.increment(1_000);
  const before = (await ruleOf(gw, id)).last_evaluated_at;
  await json(gw.admin(`/api/alerts/rules/${id}/evaluate`, { method: "POST" }), 202);
  const rule = await eventually(() => ruleOf(gw, id), (read) => read.last_evaluated_at !== before, timeoutMs);
  expect(rule.last_evaluated_at).not.toBe(before);
  return rule;
}

/** Waits until the request log holds `count` rows of the provider: figures read the log. */
export async function loggedRequests(gw: TestGateway, provider: string, count: number): Promise<void> {
  const page = await eventually(
    () => json<{ total: number }>(gw.admin(`/api/logs?providers=${provider}&limit=1`)),
    (read) => read.total >= count,
  );
  expect(page.total).toBeGreaterThanOrEqual(count);
}
