import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AUTH_CONFIG, bearer, call, createApiKey } from "../access/access-client";
import { chat, created, createVirtualKey, openAIProvider } from "../governance/support";
import { startGateway, type TestGateway } from "../support/gateway";
import { expectGatewayError } from "../support/gateway-error";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { EMAIL } from "./support";

let upstream: MockOpenAI;
let gw: TestGateway;

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({ edition: "enterprise", auth: AUTH_CONFIG, providers: { openai: openAIProvider(upstream) } });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

const post = (json: unknown) => gw.admin("/api/guardrails", { method: "POST", json });
const emailPolicy = { name: "emails", checks: [{ type: "email", action: "redact" }] };

describe("policies are checked when written: a 400 names the field", () => {
  test.each([
    ["an unknown check type", { name: "x", checks: [{ type: "horoscope" }] }, "checks[0].type"],
    ["a pattern that is not RE2", { name: "x", checks: [{ type: "regex", pattern: "(a)\\1" }] }, "checks[0].pattern"],
    ["a regex without its pattern", { name: "x", checks: [{ type: "regex" }] }, "checks[0].pattern"],
    ["redact on a check that judges the whole text", { name: "x", checks: [{ type: "length", max_characters: 10, action: "redact" }] }, "checks[0].action"],
    ["a json_schema check on the input", { name: "x", checks: [{ type: "json_schema", stage: "input" }] }, "checks[0].stage"],
    ["a model check without a model", { name: "x", checks: [{ type: "model" }] }, "checks[0].model"],
    ["a scope without its id", { ...emailPolicy, scope: "team" }, "scope_id"],
    ["a virtual key that does not exist", { ...emailPolicy, scope: "virtual_key", scope_id: "no-such-key" }, "scope_id"],
    ["a routing rule that does not exist", { ...emailPolicy, scope: "routing_rule", scope_id: "no-such-rule" }, "scope_id"],
    ["no checks", { name: "x", checks: [] }, "checks"],
    ["an http check at the metadata address", { name: "x", checks: [{ type: "http", url: "http://169.254.169.254/latest/meta-data" }] }, "checks[0].url"],
    ["an http check at the metadata address, even where private addresses are allowed", { name: "x", checks: [{ type: "http", url: "http://[::ffff:a9fe:a9fe]/v", allow_private_network: true }] }, "checks[0].url"],
    ["an http check at a loopback address without allow_private_network", { name: "x", checks: [{ type: "http", url: "http://127.1:9/verdict" }] }, "checks[0].url"],
  ])("%s", async (_, body, param) => {
    const response = await post(body);
    const error = await expectGatewayError(response, 400);
    expect(error.error.param).toBe(param);
  });
});

describe("CRUD", () => {
  test("create, read, list by scope, update, delete; an unknown id is a 404", async () => {
    const { team } = await created(gw, "/api/governance/teams", { name: "crud-team" });
    const { guardrail } = await created(gw, "/api/guardrails", { ...emailPolicy, name: "crud", scope: "team", scope_id: team.id });
    expect(guardrail).toMatchObject({ name: "crud", scope: "team", scope_id: team.id, enabled: true, restore_redacted: false, checks: emailPolicy.checks });
    type Answer = { guardrail: Record<string, unknown>; guardrails: Array<{ id: string }> };
    const read = async (path: string, init?: Parameters<TestGateway["admin"]>[1]) => (await (await gw.admin(path, init)).json()) as Answer;
    expect((await read(`/api/guardrails/${guardrail.id}`)).guardrail.id).toBe(guardrail.id);
    const listed = await read(`/api/guardrails?scope=team&scope_id=${team.id}`);
    expect(listed.guardrails.map((item) => item.id)).toEqual([guardrail.id]);
    const updated = await read(`/api/guardrails/${guardrail.id}`, { method: "PUT", json: { enabled: false } });
    expect(updated.guardrail).toMatchObject({ enabled: false, scope: "team", scope_id: team.id });
    expect((await gw.admin(`/api/guardrails/${guardrail.id}`, { method: "DELETE" })).status).toBe(200);
    await expectGatewayError(await gw.admin(`/api/guardrails/${guardrail.id}`), 404);
  });

  test("a global policy applies to every request until it is disabled", async () => {
    const { guardrail } = await created(gw, "/api/guardrails", { ...emailPolicy, name: "global" });
    await chat(gw, undefined, { messages: [{ role: "user", content: `hi ${EMAIL}` }] });
    expect(JSON.stringify(upstream.requests.at(-1)!.body)).not.toContain(EMAIL);
    await gw.admin(`/api/guardrails/${guardrail.id}`, { method: "PUT", json: { enabled: false } });
    await chat(gw, undefined, { messages: [{ role: "user", content: `hi ${EMAIL}` }] });
    expect(JSON.stringify(upstream.requests.at(-1)!.body)).toContain(EMAIL);
  });
});

describe("a policy applies to the team, customer or routing rule it is attached to", () => {
  const reachesUpstream = async (vk: string | undefined, headers: Record<string, string> = {}) => {
    expect((await chat(gw, vk, { messages: [{ role: "user", content: `hi ${EMAIL}` }] }, headers)).status).toBe(200);
    return JSON.stringify(upstream.requests.at(-1)!.body).includes(EMAIL);
  };

  test("a team's policy covers its keys, a customer's the keys under it (through its teams too), and no one else's", async () => {
    const { customer } = await created(gw, "/api/governance/customers", { name: "guarded-customer" });
    const { team } = await created(gw, "/api/governance/teams", { name: "guarded-team" });
    const { team: customerTeam } = await created(gw, "/api/governance/teams", { name: "customer-team", customer_id: customer.id });
    await created(gw, "/api/guardrails", { ...emailPolicy, name: "team-policy", scope: "team", scope_id: team.id });
    await created(gw, "/api/guardrails", { ...emailPolicy, name: "customer-policy", scope: "customer", scope_id: customer.id });
    const inTeam = await createVirtualKey(gw, { name: "in-team", team_id: team.id });
    const ofCustomer = await createVirtualKey(gw, { name: "of-customer", customer_id: customer.id });
    const viaCustomerTeam = await createVirtualKey(gw, { name: "via-customer-team", team_id: customerTeam.id });
    const outside = await createVirtualKey(gw, { name: "outside" });
    expect(await reachesUpstream(inTeam.value)).toBe(false);
    expect(await reachesUpstream(ofCustomer.value)).toBe(false);
    expect(await reachesUpstream(viaCustomerTeam.value)).toBe(false);
    expect(await reachesUpstream(outside.value)).toBe(true);
  });

  test("a routing rule's policy covers the requests the rule routed", async () => {
    const { rule } = await created(gw, "/api/governance/routing-rules", { name: "guarded-route", cel_expression: 'headers["x-route"] == "guarded"', targets: [{ provider: "openai", model: "gpt-4o-mini" }] });
    await created(gw, "/api/guardrails", { ...emailPolicy, name: "rule-policy", scope: "routing_rule", scope_id: rule.id });
    expect(await reachesUpstream(undefined, { "x-route": "guarded" })).toBe(false);
    expect(await reachesUpstream(undefined, { "x-route": "other" })).toBe(true);
  });
});

describe("Guardrails permissions", () => {
  test("a key with Guardrails:View lists but cannot create; one without it gets 403", async () => {
    const viewer = await createApiKey(gw, "guardrail-viewer", ["Guardrails:View"]);
    const stranger = await createApiKey(gw, "guardrail-stranger", ["Logs:View"]);
    expect((await call(gw, "/api/guardrails", { headers: bearer(viewer) })).status).toBe(200);
    await expectGatewayError(await call(gw, "/api/guardrails", { method: "POST", headers: bearer(viewer), json: emailPolicy }), 403);
    await expectGatewayError(await call(gw, "/api/guardrails", { headers: bearer(stranger) }), 403);
  });
});
