import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TestGateway } from "../support/gateway";
import { eventually } from "../support/eventually";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { chat, created, createVirtualKey, ManualClock, openAIProvider, startClockedGateway } from "./support";

/**
 * Saving a key, a team or a customer again with the same budgets (what an edit form sends when
 * nothing was changed, without `calendar_aligned`) keeps what was spent and when it resets.
 */
let upstream: MockOpenAI;
let clock: ManualClock;
let gw: TestGateway;

interface BudgetRow {
  owner_id: string;
  level: string;
  current_usage: number;
  calendar_aligned: boolean;
  last_reset: string;
  resets_at: string;
}

beforeAll(async () => {
  upstream = startMockOpenAI();
  clock = new ManualClock();
  gw = await startClockedGateway({ providers: { openai: openAIProvider(upstream) } }, clock);
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

const budgets = async () => ((await (await gw.admin("/api/governance/budgets")).json()) as { budgets: BudgetRow[] }).budgets;
const budgetOf = async (ownerId: string, level: string) => (await budgets()).find((row) => row.owner_id === ownerId && row.level === level);

async function spend(vk: string, ownerId: string, level: string): Promise<BudgetRow> {
  expect((await chat(gw, vk)).status).toBe(200);
  return eventually(
    async () => (await budgetOf(ownerId, level))!,
    (row) => row.current_usage > 0,
  );
}

async function put(path: string, json: unknown) {
  const response = await gw.admin(path, { method: "PUT", json });
  expect(response.status).toBe(200);
}

describe("an update that does not change a budget keeps its usage and reset time", () => {
  test("a virtual key's calendar-aligned budget, saved again without calendar_aligned", async () => {
    const key = await createVirtualKey(gw, { name: "kept", budgets: [{ max_limit: 5, reset_duration: "1M", calendar_aligned: true }] });
    clock.advance(60_000);
    const before = await spend(key.value, key.id, "virtual_key");
    clock.advance(60_000);
    await put(`/api/governance/virtual-keys/${key.id}`, { name: "kept", description: "", budgets: [{ max_limit: 5, reset_duration: "1M" }], rate_limit: null });
    const after = (await budgetOf(key.id, "virtual_key"))!;
    expect(after).toMatchObject({ current_usage: before.current_usage, calendar_aligned: true, last_reset: before.last_reset, resets_at: before.resets_at });
    expect(after.last_reset).toBe("2025-01-01T00:00:00.000Z");
  });

  test("a provider config's budget, saved again without calendar_aligned", async () => {
    const key = await createVirtualKey(gw, { name: "kept per provider", provider_configs: [{ provider: "openai", budgets: [{ max_limit: 5, reset_duration: "1w", calendar_aligned: true }] }] });
    const before = await spend(key.value, `${key.id}/openai`, "provider_config");
    clock.advance(60_000);
    await put(`/api/governance/virtual-keys/${key.id}`, { provider_configs: [{ provider: "openai", budgets: [{ max_limit: 5, reset_duration: "1w" }] }] });
    expect(await budgetOf(`${key.id}/openai`, "provider_config")).toMatchObject({ current_usage: before.current_usage, calendar_aligned: true, last_reset: before.last_reset });
  });

  test("a team's budget, saved again without calendar_aligned", async () => {
    const { team } = await created(gw, "/api/governance/teams", { name: "kept team", budgets: [{ max_limit: 5, reset_duration: "1d", calendar_aligned: true }] });
    const key = await createVirtualKey(gw, { name: "team member", team_id: team.id });
    const before = await spend(key.value, team.id, "team");
    clock.advance(60_000);
    await put(`/api/governance/teams/${team.id}`, { name: "kept team", budgets: [{ max_limit: 5, reset_duration: "1d" }] });
    expect(await budgetOf(team.id, "team")).toMatchObject({ current_usage: before.current_usage, calendar_aligned: true, last_reset: before.last_reset });
  });

  test("an explicit calendar_aligned: false still turns the alignment off", async () => {
    const key = await createVirtualKey(gw, { name: "unaligned on purpose", budgets: [{ max_limit: 5, reset_duration: "1M", calendar_aligned: true }] });
    await put(`/api/governance/virtual-keys/${key.id}`, { budgets: [{ max_limit: 5, reset_duration: "1M", calendar_aligned: false }] });
    expect((await budgetOf(key.id, "virtual_key"))!.calendar_aligned).toBe(false);
  });
});
