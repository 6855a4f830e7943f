import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startGateway, type TestGateway } from "../support/gateway";
import { expectGatewayError } from "../support/gateway-error";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { eventually } from "../support/eventually";
import { chat, created, createVirtualKey, ManualClock, openAIProvider, startClockedGateway } from "./support";

const HOUR = 3_600_000;
/** The mock answers "one two three" with 3 prompt and 4 completion tokens; at these prices that is $0.03 + $0.08. */
const PRICE = { input_cost_per_token: 0.01, output_cost_per_token: 0.02 };
const COST_PER_CALL = 3 * 0.01 + 4 * 0.02;
const TOKENS_PER_CALL = 7;

let upstream: MockOpenAI;
let clock: ManualClock;
let gw: TestGateway;

beforeAll(async () => {
  upstream = startMockOpenAI();
  clock = new ManualClock();
  // Two more providers on the same mock, for a key's limits per provider.
  const alsoOpenAI = { custom_provider_config: { base_provider_type: "openai" as const } };
  gw = await startClockedGateway({ providers: { openai: openAIProvider(upstream), second: { ...alsoOpenAI, ...openAIProvider(upstream, [{ id: "s1" }]) }, third: { ...alsoOpenAI, ...openAIProvider(upstream, [{ id: "t1" }]) } } }, clock);
  await created(gw, "/api/governance/pricing-overrides", { name: "round prices", pattern: "gpt-4o-mini", patch: PRICE });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

async function budgetsOf(ownerId: string) {
  const { budgets } = (await (await gw.admin("/api/governance/budgets")).json()) as { budgets: Array<{ owner_id: string; current_usage: number; reset_duration: string }> };
  return budgets.filter((budget) => budget.owner_id === ownerId);
}

describe("budgets: checked before the call, charged with the real cost after it (402 policy_budget_exceeded)", () => {
  test("exhaustion, retry_after_ms, and the reset when the window ends", async () => {
    const key = await createVirtualKey(gw, { name: "hourly-budget", budgets: [{ max_limit: 0.25, reset_duration: "1h" }] });
    for (let call = 0; call < 3; call++) expect((await chat(gw, key.value)).status).toBe(200);
    expect((await budgetsOf(key.id))[0]!.current_usage).toBeCloseTo(3 * COST_PER_CALL, 10);
    const calls = upstream.requests.length;
    const refused = await expectGatewayError(await chat(gw, key.value), 402, { errorType: "policy_budget_exceeded" });
    expect(refused.extra_fields.retry_after_ms).toBe(HOUR);
    expect(upstream.requests.length).toBe(calls);
    clock.advance(HOUR / 2);
    const later = await expectGatewayError(await chat(gw, key.value), 402, { errorType: "policy_budget_exceeded" });
    expect(later.extra_fields.retry_after_ms).toBe(HOUR / 2);
    clock.advance(HOUR / 2);
    expect((await chat(gw, key.value)).status).toBe(200);
    expect((await budgetsOf(key.id))[0]!.current_usage).toBeCloseTo(COST_PER_CALL, 10);
  });

  test("a calendar-aligned daily budget resets at midnight UTC, a monthly one on the 1st", async () => {
    const key = await createVirtualKey(gw, {
      name: "calendar-budgets",
      budgets: [
        { max_limit: 0.1, reset_duration: "1d", calendar_aligned: true },
        { max_limit: 0.3, reset_duration: "1M", calendar_aligned: true },
      ],
    });
    // A reply is charged just after it leaves; the clock may only move once the charge has landed.
    const charged = (calls: number) =>
      eventually(
        () => budgetsOf(key.id),
        (budgets) => budgets.find((budget) => budget.reset_duration === "1M")!.current_usage >= calls * COST_PER_CALL - 1e-9,
      );
    const now = new Date(clock.now);
    const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    const firstOfNextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
    expect((await chat(gw, key.value)).status).toBe(200);
    const daily = await expectGatewayError(await chat(gw, key.value), 402, { errorType: "policy_budget_exceeded" });
    expect(daily.extra_fields.retry_after_ms).toBe(midnight - clock.now);
    await charged(1);
    clock.advance(midnight - clock.now);
    expect((await chat(gw, key.value)).status).toBe(200);
    await charged(2);
    clock.advance(24 * HOUR);
    expect((await chat(gw, key.value)).status).toBe(200);
    await charged(3);
    clock.advance(24 * HOUR);
    const monthly = await expectGatewayError(await chat(gw, key.value), 402, { errorType: "policy_budget_exceeded" });
    expect(monthly.error.message).toContain("1M");
    expect(monthly.extra_fields.retry_after_ms).toBe(firstOfNextMonth - clock.now);
  });
});

describe("rate limits (429 policy_rate_limited)", () => {
  test("a request limit refuses the next request until its window ends", async () => {
    const key = await createVirtualKey(gw, { name: "two-per-30s", rate_limit: { request_max_limit: 2, request_reset_duration: "30s" } });
    expect((await chat(gw, key.value)).status).toBe(200);
    clock.advance(10_000);
    expect((await chat(gw, key.value)).status).toBe(200);
    const refused = await expectGatewayError(await chat(gw, key.value), 429, { errorType: "policy_rate_limited" });
    expect(refused.error.message).toBe("requests limit of virtual key 'two-per-30s' reached: 2 of 2 per 30s");
    expect(refused.extra_fields.retry_after_ms).toBe(20_000);
    clock.advance(20_000);
    expect((await chat(gw, key.value)).status).toBe(200);
  });

  test("a token limit counts the real tokens of each reply", async () => {
    const key = await createVirtualKey(gw, { name: "ten-tokens-a-minute", rate_limit: { token_max_limit: 10, token_reset_duration: "1m" } });
    expect((await chat(gw, key.value)).status).toBe(200);
    expect((await chat(gw, key.value)).status).toBe(200);
    const refused = await expectGatewayError(await chat(gw, key.value), 429, { errorType: "policy_rate_limited" });
    expect(refused.error.message).toBe(`tokens limit of virtual key 'ten-tokens-a-minute' reached: ${2 * TOKENS_PER_CALL} of 10 per 1m`);
    const { rate_limits } = (await (await gw.admin("/api/governance/rate-limits")).json()) as { rate_limits: Array<Record<string, unknown>> };
    expect(rate_limits.find((row) => row.owner_id === key.id)).toMatchObject({ level: "virtual_key", token_max_limit: 10, token_current_usage: 2 * TOKENS_PER_CALL, token_remaining: 0 });
    clock.advance(60_000);
    expect((await chat(gw, key.value)).status).toBe(200);
  });

  test("a token limit reached exactly refuses the next request", async () => {
    const key = await createVirtualKey(gw, { name: "two-calls-of-tokens", rate_limit: { token_max_limit: 2 * TOKENS_PER_CALL, token_reset_duration: "1h" } });
    expect((await chat(gw, key.value)).status).toBe(200);
    expect((await chat(gw, key.value)).status).toBe(200);
    await expectGatewayError(await chat(gw, key.value), 429, { errorType: "policy_rate_limited" });
  });

  test("exactly 50 of 200 simultaneous requests pass a request limit of 50", async () => {
    const key = await createVirtualKey(gw, { name: "fifty", rate_limit: { request_max_limit: 50, request_reset_duration: "1h" } });
    const before = upstream.requests.length;
    const statuses = await Promise.all(Array.from({ length: 200 }, () => chat(gw, key.value).then(async (response) => (await response.arrayBuffer(), response.status))));
    expect(statuses.filter((status) => status === 200)).toHaveLength(50);
    expect(statuses.filter((status) => status === 429)).toHaveLength(150);
    expect(upstream.requests.length - before).toBe(50);
  });
});

describe("hierarchy: the key's, its team's and its customer's budgets are each checked", () => {
  test("a customer's budget stops every key under it, through its teams", async () => {
    const { customer } = await created(gw, "/api/governance/customers", { name: "small-customer", budgets: [{ max_limit: 0.15, reset_duration: "1d" }] });
    const { team } = await created(gw, "/api/governance/teams", { name: "big-team", customer_id: customer.id, budgets: [{ max_limit: 100, reset_duration: "1d" }] });
    const first = await createVirtualKey(gw, { name: "member-one", team_id: team.id, budgets: [{ max_limit: 100, reset_duration: "1d" }] });
    const second = await createVirtualKey(gw, { name: "direct-member", customer_id: customer.id });
    expect((await chat(gw, first.value)).status).toBe(200);
    expect((await chat(gw, second.value)).status).toBe(200);
    const refused = await expectGatewayError(await chat(gw, first.value), 402, { errorType: "policy_budget_exceeded" });
    expect(refused.error.message).toContain("customer 'small-customer'");
    await expectGatewayError(await chat(gw, second.value), 402, { errorType: "policy_budget_exceeded" });
    expect((await budgetsOf(customer.id))[0]!.current_usage).toBeCloseTo(2 * COST_PER_CALL, 10);
    expect((await budgetsOf(team.id))[0]!.current_usage).toBeCloseTo(COST_PER_CALL, 10);
  });

  test("a team's budget is shared by its keys", async () => {
    const { team } = await created(gw, "/api/governance/teams", { name: "thrifty-team", budgets: [{ max_limit: 0.1, reset_duration: "1w" }] });
    const spender = await createVirtualKey(gw, { name: "spender", team_id: team.id });
    const sibling = await createVirtualKey(gw, { name: "sibling", team_id: team.id });
    expect((await chat(gw, spender.value)).status).toBe(200);
    const refused = await expectGatewayError(await chat(gw, sibling.value), 402, { errorType: "policy_budget_exceeded" });
    expect(refused.error.message).toContain("team 'thrifty-team'");
  });

  test("a provider config's budget limits that provider only", async () => {
    const key = await createVirtualKey(gw, { name: "per-provider", provider_configs: [{ provider: "openai", budgets: [{ max_limit: 0.1, reset_duration: "1d" }] }] });
    expect((await chat(gw, key.value)).status).toBe(200);
    const refused = await expectGatewayError(await chat(gw, key.value), 402, { errorType: "policy_budget_exceeded" });
    expect(refused.error.message).toContain("provider config 'per-provider/openai'");
  });

  test("each provider config counts on its own: a budget per provider, and a provider with only a request limit", async () => {
    const key = await createVirtualKey(gw, {
      name: "three-providers",
      provider_configs: [
        { provider: "openai", budgets: [{ max_limit: 0.1, reset_duration: "1d" }] },
        { provider: "second", budgets: [{ max_limit: 0.2, reset_duration: "1d" }] },
        { provider: "third", rate_limit: { request_max_limit: 1, request_reset_duration: "1h" } },
      ],
    });
    const on = (provider: string) => chat(gw, key.value, { model: `${provider}/gpt-4o-mini` });
    expect((await on("openai")).status).toBe(200);
    await expectGatewayError(await on("openai"), 402, { errorType: "policy_budget_exceeded" });
    // $0.11 of $0.20 spent on the second after one call: a second call still fits.
    expect((await on("second")).status).toBe(200);
    expect((await on("second")).status).toBe(200);
    const spent = await expectGatewayError(await on("second"), 402, { errorType: "policy_budget_exceeded" });
    expect(spent.error.message).toContain("provider config 'three-providers/second'");
    expect((await on("third")).status).toBe(200);
    const limited = await expectGatewayError(await on("third"), 429, { errorType: "policy_rate_limited" });
    expect(limited.error.message).toBe("requests limit of provider config 'three-providers/third' reached: 1 of 1 per 1h");
  });
});

describe("the quota endpoint answers a virtual key about itself", () => {
  test("what is left of each budget and limit, authenticated by the key alone", async () => {
    const { customer } = await created(gw, "/api/governance/customers", { name: "quota-customer", budgets: [{ max_limit: 2, reset_duration: "1d" }] });
    const key = await createVirtualKey(gw, { name: "quota-key", customer_id: customer.id, budgets: [{ max_limit: 1, reset_duration: "1h" }], rate_limit: { request_max_limit: 10, request_reset_duration: "1m" } });
    await chat(gw, key.value);
    const response = await fetch(`${gw.url}/api/governance/virtual-keys/quota`, { headers: { authorization: `Bearer ${key.value}` } });
    expect(response.status).toBe(200);
    const quota = (await response.json()) as { virtual_key: { id: string }; budgets: Array<Record<string, number | string>>; rate_limits: Array<Record<string, unknown>> };
    expect(quota.virtual_key.id).toBe(key.id);
    const [own, customers] = quota.budgets;
    expect(own).toMatchObject({ level: "virtual_key", max_limit: 1, reset_duration: "1h" });
    expect(own!.remaining as number).toBeCloseTo(1 - COST_PER_CALL, 10);
    expect(customers).toMatchObject({ level: "customer", owner_name: "quota-customer", max_limit: 2 });
    expect(quota.rate_limits).toEqual([expect.objectContaining({ level: "virtual_key", request_max_limit: 10, request_current_usage: 1, request_remaining: 9 })]);
    await expectGatewayError(await fetch(`${gw.url}/api/governance/virtual-keys/quota`), 401, { errorType: "caller_virtual_key_required" });
    await expectGatewayError(await gw.admin("/api/governance/virtual-keys/quota"), 401, { errorType: "caller_virtual_key_required" });
  });
});

describe("counters survive a restart", () => {
  test("usage written before a stop is still counted after it", async () => {
    const restartable = await startClockedGateway({ providers: { openai: openAIProvider(upstream) } }, clock);
    const key = await createVirtualKey(restartable, { name: "persistent", rate_limit: { request_max_limit: 2, request_reset_duration: "1d" } });
    expect((await chat(restartable, key.value)).status).toBe(200);
    expect((await chat(restartable, key.value)).status).toBe(200);
    await restartable.stop();
    const restarted = await restartable.restart();
    try {
      await expectGatewayError(await chat(restarted, key.value), 429, { errorType: "policy_rate_limited" });
      clock.advance(24 * HOUR);
      expect((await chat(restarted, key.value)).status).toBe(200);
    } finally {
      await restarted.close();
    }
  });
});

describe("several nodes on one database count together", () => {
  test("a budget spent on two nodes is enforced by both", async () => {
    const config = { providers: { openai: openAIProvider(upstream) } };
    const first = await startClockedGateway(config, clock);
    await created(first, "/api/governance/pricing-overrides", { name: "round prices", pattern: "gpt-4o-mini", patch: PRICE });
    const key = await createVirtualKey(first, { name: "shared-budget", budgets: [{ max_limit: 0.3, reset_duration: "1d" }] });
    const second = await startGateway(config, { databaseUrl: first.databaseUrl, runtime: { clock: clock.read } });
    // Nodes save and read each other's usage every second: wait for a node to have caught up.
    const usageSeenBy = (node: TestGateway, calls: number) =>
      eventually(
        async () => {
          const { budgets } = (await (await node.admin("/api/governance/budgets")).json()) as { budgets: Array<{ owner_id: string; current_usage: number }> };
          return budgets.find((budget) => budget.owner_id === key.id)!.current_usage;
        },
        (used) => Math.abs(used - calls * COST_PER_CALL) < 1e-9,
      );
    try {
      expect((await chat(first, key.value)).status).toBe(200);
      expect((await chat(second, key.value)).status).toBe(200);
      expect(await usageSeenBy(first, 2)).toBeCloseTo(2 * COST_PER_CALL, 9);
      expect((await chat(first, key.value)).status).toBe(200);
      expect(await usageSeenBy(second, 3)).toBeCloseTo(3 * COST_PER_CALL, 9);
      await expectGatewayError(await chat(second, key.value), 402, { errorType: "policy_budget_exceeded" });
    } finally {
      await second.close();
      await first.close();
    }
  });
});
