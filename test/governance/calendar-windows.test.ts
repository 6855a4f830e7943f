import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TestGateway } from "../support/gateway";
import { expectGatewayError } from "../support/gateway-error";
import { eventually } from "../support/eventually";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { chat, created, createVirtualKey, ManualClock, openAIProvider, startClockedGateway } from "./support";

/**
 * Calendar-aligned budgets (`calendar_aligned: true`) reset on the calendar's boundaries in UTC:
 * a week on Monday 00:00, a month on the 1st whatever its length, a year on January 1st. Each
 * budget lets one call through (it costs more than the limit) and refuses the next until its
 * window ends; the refusal's retry_after_ms says when that is, and the instants either side of
 * the end show the reset happens exactly there.
 */
const COST_PER_CALL = 3 * 0.01 + 4 * 0.02;

let upstream: MockOpenAI;
let clock: ManualClock;
let gw: TestGateway;

beforeAll(async () => {
  upstream = startMockOpenAI();
  clock = new ManualClock();
  gw = await startClockedGateway({ providers: { openai: openAIProvider(upstream) } }, clock);
  await created(gw, "/api/governance/pricing-overrides", { name: "round prices", pattern: "gpt-4o-mini", patch: { input_cost_per_token: 0.01, output_cost_per_token: 0.02 } });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

const utc = (iso: string) => Date.parse(`${iso}Z`);

/** Spends the budget at `from` and checks it stays spent until exactly `windowEnd`. */
async function expectWindow(resetDuration: string, from: string, windowEnd: string) {
  const key = await createVirtualKey(gw, { name: `${resetDuration} from ${from}`, budgets: [{ max_limit: 0.1, reset_duration: resetDuration, calendar_aligned: true }] });
  const end = utc(windowEnd);
  clock.now = utc(from);
  expect((await chat(gw, key.value)).status).toBe(200);
  // The charge lands just after the reply: the clock may only move once it has.
  await eventually(
    async () => ((await (await gw.admin("/api/governance/budgets")).json()) as { budgets: Array<{ owner_id: string; current_usage: number }> }).budgets,
    (budgets) => budgets.some((budget) => budget.owner_id === key.id && budget.current_usage >= COST_PER_CALL - 1e-9),
  );
  const refused = await expectGatewayError(await chat(gw, key.value), 402, { errorType: "policy_budget_exceeded" });
  expect(refused.extra_fields.retry_after_ms).toBe(end - clock.now);

  clock.now = end - 1;
  const lastInstant = await expectGatewayError(await chat(gw, key.value), 402, { errorType: "policy_budget_exceeded" });
  expect(lastInstant.extra_fields.retry_after_ms).toBe(1);

  clock.now = end;
  expect((await chat(gw, key.value)).status).toBe(200);
}

describe("weekly windows run Monday 00:00 to Monday 00:00 UTC", () => {
  test("from a Wednesday", () => expectWindow("1w", "2025-01-15T12:00:00.000", "2025-01-20T00:00:00.000"));
  test("from the last instant of a Sunday, the week that began the Monday before", () => expectWindow("1w", "2025-01-26T23:59:59.999", "2025-01-27T00:00:00.000"));
  test("from the first instant of a Monday, the whole week ahead", () => expectWindow("1w", "2025-01-27T00:00:00.000", "2025-02-03T00:00:00.000"));
  test("across a year's end", () => expectWindow("1w", "2025-12-31T08:00:00.000", "2026-01-05T00:00:00.000"));
  test("two weeks from the Monday that starts the current one", () => expectWindow("2w", "2025-01-16T00:00:00.000", "2025-01-27T00:00:00.000"));
});

describe("monthly windows end on the 1st, whatever the month's length", () => {
  test("31 days (January)", () => expectWindow("1M", "2025-01-31T23:00:00.000", "2025-02-01T00:00:00.000"));
  test("30 days (April)", () => expectWindow("1M", "2025-04-30T12:00:00.000", "2025-05-01T00:00:00.000"));
  test("28 days (February 2025)", () => expectWindow("1M", "2025-02-01T00:00:00.000", "2025-03-01T00:00:00.000"));
  test("29 days (February of leap year 2024)", () => expectWindow("1M", "2024-02-28T23:59:59.000", "2024-03-01T00:00:00.000"));
  test("28 days (February 2100: a century year is not a leap year)", () => expectWindow("1M", "2100-02-28T06:00:00.000", "2100-03-01T00:00:00.000"));
  test("three months from the 1st of the current one", () => expectWindow("3M", "2025-11-30T00:00:00.000", "2026-02-01T00:00:00.000"));
});

describe("yearly windows end on January 1st 00:00 UTC", () => {
  test("a leap year (2024)", () => expectWindow("1Y", "2024-03-01T00:00:00.000", "2025-01-01T00:00:00.000"));
  test("from its first instant", () => expectWindow("1Y", "2025-01-01T00:00:00.000", "2026-01-01T00:00:00.000"));
  test("from its last instant", () => expectWindow("1Y", "2025-12-31T23:59:59.999", "2026-01-01T00:00:00.000"));
});

describe("daily windows end at midnight UTC", () => {
  test("from the first instant of a day", () => expectWindow("1d", "2025-03-10T00:00:00.000", "2025-03-11T00:00:00.000"));
  test("across the 29th of February", () => expectWindow("1d", "2024-02-29T23:30:00.000", "2024-03-01T00:00:00.000"));
});
