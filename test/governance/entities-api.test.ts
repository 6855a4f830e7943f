import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { chat, created, createVirtualKey, openAIProvider } from "./support";

let upstream: MockOpenAI;
let gw: TestGateway;

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({ providers: { openai: openAIProvider(upstream, [{ id: "k1" }, { id: "k2" }]) } });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

const json = async (path: string, init?: RequestInit & { json?: unknown }) => {
  const response = await gw.admin(path, init);
  return { status: response.status, body: (await response.json()) as Record<string, any> };
};

describe("virtual keys: sk-gw- values shown only on create and rotate", () => {
  test("create returns the full value once; reads show only its prefix", async () => {
    const { virtual_key } = await created(gw, "/api/governance/virtual-keys", { name: "shown-once", description: "for the docs team" });
    expect(virtual_key.value).toMatch(/^sk-gw-[A-Za-z0-9_-]{32}$/);
    expect(virtual_key).toMatchObject({ name: "shown-once", description: "for the docs team", is_active: true, key_prefix: virtual_key.value.slice(0, 14) });
    const read = await json(`/api/governance/virtual-keys/${virtual_key.id}`);
    expect(read.body.virtual_key.value).toBeUndefined();
    expect(JSON.stringify(read.body)).not.toContain(virtual_key.value);
    const listed = await json("/api/governance/virtual-keys");
    expect(JSON.stringify(listed.body)).not.toContain(virtual_key.value);
  });

  test("list takes search, limit and offset and reports the total", async () => {
    for (const name of ["search-alpha", "search-beta", "search-gamma"]) await createVirtualKey(gw, { name });
    const page = await json("/api/governance/virtual-keys?search=SEARCH-&limit=2&offset=1");
    expect(page.body).toMatchObject({ count: 2, total_count: 3, limit: 2, offset: 1 });
    expect(page.body.virtual_keys.map((key: { name: string }) => key.name)).toEqual(["search-beta", "search-gamma"]);
  });

  test("rotate issues a new value and the old one stops working at once", async () => {
    const key = await createVirtualKey(gw, { name: "rotated" });
    expect((await chat(gw, key.value)).status).toBe(200);
    const rotated = await json(`/api/governance/virtual-keys/${key.id}/rotate`, { method: "POST" });
    expect(rotated.status).toBe(200);
    expect(rotated.body.virtual_key.value).toMatch(/^sk-gw-/);
    expect(rotated.body.virtual_key.value).not.toBe(key.value);
    await expectGatewayError(await chat(gw, key.value), 401, { errorType: "caller_virtual_key_invalid" });
    expect((await chat(gw, rotated.body.virtual_key.value)).status).toBe(200);
  });

  test("update keeps omitted fields; delete makes the key unusable", async () => {
    const key = await createVirtualKey(gw, { name: "updated", description: "before", budgets: [{ max_limit: 5, reset_duration: "1d" }] });
    const updated = await json(`/api/governance/virtual-keys/${key.id}`, { method: "PUT", json: { description: "after" } });
    expect(updated.body.virtual_key).toMatchObject({ name: "updated", description: "after", budgets: [{ max_limit: 5, reset_duration: "1d", calendar_aligned: false }] });
    expect((await json(`/api/governance/virtual-keys/${key.id}`, { method: "DELETE" })).body).toEqual({ message: "Virtual key deleted successfully" });
    await expectGatewayError(await chat(gw, key.value), 401, { errorType: "caller_virtual_key_invalid" });
    await expectGatewayError(await gw.admin(`/api/governance/virtual-keys/${key.id}`), 404);
  });

  test("a name another key holds is a 409 naming name, also when the two differ only in a lone surrogate (one once stored)", async () => {
    await createVirtualKey(gw, { name: "twin" });
    await expectGatewayError(await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name: "twin" } }), 409, { param: "name", errorType: "caller_conflict" });
    await createVirtualKey(gw, { name: "broken\ud800" });
    await expectGatewayError(await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name: "broken\udc00" } }), 409, { param: "name", errorType: "caller_conflict" });
    const { body } = await json("/api/governance/virtual-keys?search=broken");
    expect(body.virtual_keys).toHaveLength(1);
  });

  test("a key belongs to a team or a customer, not both", async () => {
    const { team } = await created(gw, "/api/governance/teams", { name: "xor-team" });
    const { customer } = await created(gw, "/api/governance/customers", { name: "xor-customer" });
    await expectGatewayError(await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name: "both", team_id: team.id, customer_id: customer.id } }), 400, { param: "customer_id" });
    await expectGatewayError(await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name: "ghost-team", team_id: "no-such-team" } }), 400, { param: "team_id" });
  });

  test("provider configs name configured providers and their keys", async () => {
    await expectGatewayError(await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name: "bad-provider", provider_configs: [{ provider: "nowhere" }] } }), 400, { param: "provider_configs[0].provider" });
    await expectGatewayError(await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name: "bad-key", provider_configs: [{ provider: "openai", key_ids: ["k9"] }] } }), 400, { param: "provider_configs[0].key_ids" });
  });
});

describe("budgets and rate limits are validated when written", () => {
  test("durations are 30s 5m 1h 1d 1w 1M", async () => {
    const budgets = ["30s", "5m", "1h", "1d", "1w", "1M"].map((reset_duration) => ({ max_limit: 1, reset_duration }));
    const { virtual_key } = await created(gw, "/api/governance/virtual-keys", { name: "all-durations", budgets });
    expect(virtual_key.budgets.map((budget: { reset_duration: string }) => budget.reset_duration)).toEqual(["30s", "5m", "1h", "1d", "1w", "1M"]);
    await expectGatewayError(await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name: "bad-duration", budgets: [{ max_limit: 1, reset_duration: "1 day" }] } }), 400, { param: "budgets[0].reset_duration" });
  });

  test("a reset duration is at most a century: a longer one would end past the dates a budget window can hold", async () => {
    const { virtual_key } = await created(gw, "/api/governance/virtual-keys", { name: "century", budgets: [{ max_limit: 1, reset_duration: "100Y" }], rate_limit: { request_max_limit: 5, request_reset_duration: "1000M" } });
    expect(virtual_key.budgets[0].reset_duration).toBe("100Y");
    await expectGatewayError(await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name: "eternal", budgets: [{ max_limit: 1, reset_duration: "300000Y" }] } }), 400, { param: "budgets[0].reset_duration" });
    const eternalLimit = { name: "eternal-limit", rate_limit: { token_max_limit: 5, token_reset_duration: "99999999999999999999Y" } };
    await expectGatewayError(await gw.admin("/api/governance/virtual-keys", { method: "POST", json: eternalLimit }), 400, { param: "rate_limit.token_reset_duration" });
    // The century is 100 years of 366 days: 1180 months of 31 days fit, 1181 do not; 101Y does not.
    const longest = await created(gw, "/api/governance/virtual-keys", { name: "longest-months", budgets: [{ max_limit: 1, reset_duration: "1180M" }] });
    expect(longest.virtual_key.budgets[0].reset_duration).toBe("1180M");
    for (const [name, reset_duration] of [["too-many-months", "1181M"], ["past-a-century", "101Y"], ["too-many-weeks", "5229w"]] as const) {
      const refused = await expectGatewayError(await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name, budgets: [{ max_limit: 1, reset_duration }] } }), 400, { param: "budgets[0].reset_duration" });
      expect(refused.error.message).toContain(reset_duration);
    }
    // Budgets of other keys stay readable.
    expect((await gw.admin("/api/governance/budgets")).status).toBe(200);
  });

  test("calendar alignment needs days, weeks, months or years", async () => {
    const response = await gw.admin("/api/governance/customers", { method: "POST", json: { name: "hourly-calendar", budgets: [{ max_limit: 1, reset_duration: "1h", calendar_aligned: true }] } });
    await expectGatewayError(response, 400, { param: "budgets[0].calendar_aligned" });
  });

  test("a rate limit's maximum comes with its reset duration", async () => {
    const response = await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name: "half-limit", rate_limit: { request_max_limit: 5 } } });
    await expectGatewayError(response, 400, { param: "rate_limit.request_reset_duration" });
  });
});

describe("teams and customers", () => {
  test("CRUD, with a team's customer shown by name", async () => {
    const { customer } = await created(gw, "/api/governance/customers", { name: "Acme", budgets: [{ max_limit: 100, reset_duration: "1M", calendar_aligned: true }] });
    const { team } = await created(gw, "/api/governance/teams", { name: "Acme ML", customer_id: customer.id });
    expect(team.customer).toEqual({ id: customer.id, name: "Acme" });
    const renamed = await json(`/api/governance/customers/${customer.id}`, { method: "PUT", json: { name: "Acme Corp" } });
    expect(renamed.body.customer).toMatchObject({ name: "Acme Corp", budgets: [{ max_limit: 100, reset_duration: "1M", calendar_aligned: true }] });
    expect((await json(`/api/governance/teams/${team.id}`)).body.team.customer.name).toBe("Acme Corp");
    const listed = await json("/api/governance/teams?search=acme");
    expect(listed.body.teams.map((row: { id: string }) => row.id)).toEqual([team.id]);
  });

  test("DELETE /api/governance/teams/{team_id} answers 'Team deleted successfully' and detaches its keys", async () => {
    const { team } = await created(gw, "/api/governance/teams", { name: "short-lived" });
    const key = await createVirtualKey(gw, { name: "member", team_id: team.id });
    expect(await json(`/api/governance/teams/${team.id}`, { method: "DELETE" })).toEqual({ status: 200, body: { message: "Team deleted successfully" } });
    expect((await json(`/api/governance/virtual-keys/${key.id}`)).body.virtual_key.team_id).toBeNull();
    expect((await chat(gw, key.value)).status).toBe(200);
  });

  test("the deprecated DELETE /api/teams/{team_id} does the same and says it is deprecated", async () => {
    const { team } = await created(gw, "/api/governance/teams", { name: "old-path" });
    const response = await gw.admin(`/api/teams/${team.id}`, { method: "DELETE" });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ message: "Team deleted successfully" });
    expect(response.headers.get("deprecation")).toBe("true");
    expect(response.headers.get("link")).toContain(`/api/governance/teams/${team.id}`);
    await expectGatewayError(await gw.admin(`/api/governance/teams/${team.id}`), 404);
  });
});
