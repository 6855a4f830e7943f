import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eventually } from "../support/eventually";
import { startGateway, type TestGateway } from "../support/gateway";
import { expectGatewayError } from "../support/gateway-error";
import { mainProcessWorkspace, startGatewayProcess } from "../support/main-process";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { chat, created, createVirtualKey, openAIProvider } from "./support";

let upstream: MockOpenAI;
let gw: TestGateway;

const config = () => ({ providers: { openai: openAIProvider(upstream, [{ id: "k1" }, { id: "k2" }]), groq: openAIProvider(upstream, [{ id: "g1" }]) } });

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway(config());
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

const createRule = (rule: Record<string, unknown>) => created(gw, "/api/governance/routing-rules", rule);
/** Each test matches its own metadata value, so the rules of one test never route another's requests. */
const forCase = (name: string) => `metadata["case"] == "${name}"`;
const inCase = (name: string) => ({ "x-gw-metadata-case": name });

/** Where the request went: the answering provider and the model it was sent upstream as. */
async function routedTo(response: Response) {
  expect(response.status).toBe(200);
  await response.arrayBuffer();
  return `${response.headers.get("x-gw-provider")}/${upstream.requests.at(-1)!.body.model}`;
}

describe("expressions are checked when written", () => {
  // The reason is the first line of CEL's message, without the source excerpt it adds below.
  test.each([
    ["a syntax error", 'model == "gpt-4o" &&', /^cel_expression is not a valid CEL expression: Unexpected token: EOF$/],
    ["an unknown variable", 'tier == "premium"', /^cel_expression is not a valid CEL expression: Unknown variable: tier$/],
    ["a type error", "model + 1 == 2", /^cel_expression is not a valid CEL expression: .*\bstring\b.*\bint\b[^\n]*$/],
    ["an expression that is not a boolean", "model", /^cel_expression must be a boolean expression, not string$/],
  ])("%s is a 400 naming cel_expression, and saying what is wrong", async (_, expression, message) => {
    const response = await gw.admin("/api/governance/routing-rules", { method: "POST", json: { name: "bad", cel_expression: expression, targets: [{ provider: "openai", model: "gpt-4o" }] } });
    const body = await expectGatewayError(response, 400, { param: "cel_expression", errorType: "caller_invalid_cel_expression" });
    expect(body.error.message).toMatch(message);
  });

  test("an expression typed only when it runs (dyn) is accepted, and matches only when it yields true", async () => {
    await createRule({ name: "dyn-true", cel_expression: 'dyn(metadata["case"] == "dyn")', targets: [{ provider: "groq", model: "dyn-model" }] });
    await createRule({ name: "dyn-string", cel_expression: 'dyn(metadata["case"])', targets: [{ provider: "groq", model: "never" }] });
    expect(await routedTo(await chat(gw, undefined, {}, inCase("dyn")))).toBe("groq/dyn-model");
  });

  test("an update with an invalid expression is refused and the rule keeps routing", async () => {
    const { rule } = await createRule({ name: "kept", cel_expression: forCase("kept"), targets: [{ provider: "groq", model: "kept-model" }] });
    await expectGatewayError(await gw.admin(`/api/governance/routing-rules/${rule.id}`, { method: "PUT", json: { cel_expression: "((" } }), 400, { param: "cel_expression" });
    expect(await routedTo(await chat(gw, undefined, {}, inCase("kept")))).toBe("groq/kept-model");
  });

  test("a scope other than global needs an existing scope_id", async () => {
    await expectGatewayError(await gw.admin("/api/governance/routing-rules", { method: "POST", json: { name: "no-id", cel_expression: "true", scope: "team", targets: [{ provider: "openai" }] } }), 400, { param: "scope_id" });
    await expectGatewayError(await gw.admin("/api/governance/routing-rules", { method: "POST", json: { name: "bad-id", cel_expression: "true", scope: "virtual_key", scope_id: "nope", targets: [{ provider: "openai" }] } }), 400, { param: "scope_id" });
  });
});

describe("priorities are 32-bit integers", () => {
  test("a priority past one is a 400 naming priority; one at the edge is kept across a restart", async () => {
    const rule = { cel_expression: forCase("edge"), targets: [{ provider: "groq", model: "edge-model" }] };
    for (const priority of [2 ** 53 + 2, 2 ** 31, -(2 ** 31)]) {
      await expectGatewayError(await gw.admin("/api/governance/routing-rules", { method: "POST", json: { ...rule, name: "too-far", priority } }), 400, { param: "priority" });
    }
    await createRule({ ...rule, name: "last", priority: 2 ** 31 - 1 });
    await createRule({ ...rule, name: "first", priority: -(2 ** 31 - 1), targets: [{ provider: "groq", model: "first-model" }] });
    await gw.stop();
    gw = await gw.restart();
    expect(await routedTo(await chat(gw, undefined, {}, inCase("edge")))).toBe("groq/first-model");
  });
});

describe("an empty expression", () => {
  const workspace = mainProcessWorkspace();
  afterAll(() => workspace.remove());

  // A new process: CEL is loaded once per process, so only a fresh one shows whether a start loads it for the rules it reads.
  test("an empty or blank expression matches every request in its scope, also in a gateway started later beside rules with expressions", async () => {
    const empty = await createVirtualKey(gw, { name: "empty-expression" });
    const blank = await createVirtualKey(gw, { name: "blank-expression" });
    await createRule({ name: "empty", scope: "virtual_key", scope_id: empty.id, cel_expression: "", targets: [{ provider: "groq", model: "empty-model" }] });
    await createRule({ name: "blank", scope: "virtual_key", scope_id: blank.id, cel_expression: "  ", targets: [{ provider: "groq", model: "blank-model" }] });
    await createRule({ name: "beside", cel_expression: forCase("beside-empty"), targets: [{ provider: "groq", model: "beside-model" }] });
    const routes = async (url: string) => {
      const send = (vk: string | undefined, body: Record<string, unknown>, headers: Record<string, string> = {}) => chat({ url } as TestGateway, vk, body, headers).then(routedTo);
      return [await send(empty.value, {}), await send(blank.value, { model: "groq/other" }), await send(undefined, {}, inCase("beside-empty"))];
    };
    expect(await routes(gw.url)).toEqual(["groq/empty-model", "groq/blank-model", "groq/beside-model"]);
    await gw.stop();
    const later = await startGatewayProcess(workspace.writeConfig(config()), { GATEWAY_DB_URL: gw.databaseUrl, GATEWAY_ENCRYPTION_KEY: "test-encryption-key" });
    try {
      expect(await routes(later.url)).toEqual(["groq/empty-model", "groq/blank-model", "groq/beside-model"]);
    } finally {
      expect(await later.stop()).toBe(0);
      gw = await gw.restart();
    }
  });
});

describe("rule selection", () => {
  test("a model that names no configured provider has provider \"\" in expressions", async () => {
    await createRule({ name: "nameless", cel_expression: 'model == "nameless-model" && provider == ""', targets: [{ provider: "groq", model: "named-at-last" }] });
    expect(await routedTo(await chat(gw, undefined, { model: "nameless-model" }))).toBe("groq/named-at-last");
    expect(await routedTo(await chat(gw, undefined, { model: "openai/nameless-model" }))).toBe("openai/nameless-model");
  });

  test("the request log names the rule and the routing-rule engine for a routed request, and no engine for one no rule matched", async () => {
    const key = await createVirtualKey(gw, { name: "logged-routes" });
    const { rule } = await createRule({ name: "logged", scope: "virtual_key", scope_id: key.id, cel_expression: forCase("logged"), targets: [{ provider: "groq", model: "logged-model" }] });
    await routedTo(await chat(gw, key.value, {}, inCase("logged")));
    await routedTo(await chat(gw, key.value));
    const read = async () => ((await (await gw.admin(`/api/logs?virtual_key_ids=${key.id}&order=asc`)).json()) as { logs: Array<Record<string, unknown>> }).logs;
    const logs = await eventually(read, (rows) => rows.length >= 2);
    expect(logs.map((log) => [log.model, log.routing_rule_id, log.routing_rule_name, log.routing_engine_used])).toEqual([
      ["logged-model", rule.id, "logged", "routing-rule"],
      ["gpt-4o-mini", null, null, null],
    ]);
  });


  test("a header condition reroutes; a request without the header is left alone", async () => {
    await createRule({ name: "premium", cel_expression: `${forCase("headers")} && headers["x-tier"] == "premium"`, targets: [{ provider: "groq", model: "llama-3.3-70b-versatile" }] });
    expect(await routedTo(await chat(gw, undefined, {}, { ...inCase("headers"), "x-tier": "premium" }))).toBe("groq/llama-3.3-70b-versatile");
    expect(await routedTo(await chat(gw, undefined, {}, inCase("headers")))).toBe("openai/gpt-4o-mini");
  });

  test("within a scope, the lowest priority number that matches wins", async () => {
    await createRule({ name: "second", priority: 5, cel_expression: forCase("priority"), targets: [{ model: "priority-5" }] });
    await createRule({ name: "first", priority: 1, cel_expression: forCase("priority"), targets: [{ model: "priority-1" }] });
    await createRule({ name: "zeroth-but-off", priority: 0, enabled: false, cel_expression: forCase("priority"), targets: [{ model: "disabled" }] });
    expect(await routedTo(await chat(gw, undefined, {}, inCase("priority")))).toBe("openai/priority-1");
  });

  test("scope order: virtual key, then team, then customer, then global", async () => {
    const { customer } = await created(gw, "/api/governance/customers", { name: "scoped-customer" });
    const { team } = await created(gw, "/api/governance/teams", { name: "scoped-team", customer_id: customer.id });
    const key = await createVirtualKey(gw, { name: "scoped-key", team_id: team.id });
    const loner = await createVirtualKey(gw, { name: "loner" });
    const rules: Record<string, string> = {};
    for (const [scope, scope_id] of [["global", null], ["customer", customer.id], ["team", team.id], ["virtual_key", key.id]] as const) {
      // Broader scopes get the better priority numbers: scope order must still win.
      const { rule } = await createRule({ name: `${scope}-rule`, scope, scope_id, priority: scope === "virtual_key" ? 100 : 0, cel_expression: forCase("scopes"), targets: [{ model: `${scope}-model` }] });
      rules[scope] = rule.id;
    }
    const routed = () => chat(gw, key.value, {}, inCase("scopes")).then(routedTo);
    expect(await routed()).toBe("openai/virtual_key-model");
    await gw.admin(`/api/governance/routing-rules/${rules.virtual_key}`, { method: "DELETE" });
    expect(await routed()).toBe("openai/team-model");
    await gw.admin(`/api/governance/routing-rules/${rules.team}`, { method: "PUT", json: { enabled: false } });
    expect(await routed()).toBe("openai/customer-model");
    await gw.admin(`/api/governance/routing-rules/${rules.customer}`, { method: "DELETE" });
    expect(await routed()).toBe("openai/global-model");
    expect(await routedTo(await chat(gw, loner.value, {}, inCase("scopes")))).toBe("openai/global-model");
  });

  test("the virtual key, its team and customer are variables", async () => {
    const { team } = await created(gw, "/api/governance/teams", { name: "research" });
    const key = await createVirtualKey(gw, { name: "researcher", team_id: team.id });
    await createRule({ name: "by-team", cel_expression: `${forCase("identity")} && team_name == "research" && virtual_key_name == "researcher"`, targets: [{ provider: "groq", model: "research-model" }] });
    expect(await routedTo(await chat(gw, key.value, {}, inCase("identity")))).toBe("groq/research-model");
    expect(await routedTo(await chat(gw, undefined, {}, inCase("identity")))).toBe("openai/gpt-4o-mini");
  });

  test("budget_used lets a key move to a cheaper model as its budget runs down", async () => {
    await created(gw, "/api/governance/pricing-overrides", { name: "budget-case prices", pattern: "budget-case-model", patch: { input_cost_per_token: 0.1, output_cost_per_token: 0.1 } });
    const key = await createVirtualKey(gw, { name: "thrifty", budgets: [{ max_limit: 0.9, reset_duration: "1d" }] });
    await createRule({ name: "cheap-when-spent", scope: "virtual_key", scope_id: key.id, cel_expression: "budget_used >= 70.0", targets: [{ provider: "groq", model: "cheap-model" }] });
    // 3 prompt and 4 completion tokens at $0.10 each: $0.70, 78% of the budget.
    expect(await routedTo(await chat(gw, key.value, { model: "openai/budget-case-model" }))).toBe("openai/budget-case-model");
    expect(await routedTo(await chat(gw, key.value, { model: "openai/budget-case-model" }))).toBe("groq/cheap-model");
  });

  test("a rule can route a model name no key lists; without a matching rule, such a name is a 400 on model", async () => {
    await createRule({ name: "alias", cel_expression: 'model == "smart-alias"', targets: [{ provider: "openai", model: "gpt-4o" }] });
    expect(await routedTo(await chat(gw, undefined, { model: "smart-alias" }))).toBe("openai/gpt-4o");
    await expectGatewayError(await chat(gw, undefined, { model: "dumb-alias" }), 400, { param: "model", errorType: "caller_invalid_model" });
  });
});

describe("targets, weights, keys and fallbacks", () => {
  test("a target's key_id pins that key", async () => {
    await createRule({ name: "pin-k2", cel_expression: forCase("pin"), targets: [{ provider: "openai", key_id: "k2" }] });
    for (let call = 0; call < 5; call++) {
      await routedTo(await chat(gw, undefined, {}, inCase("pin")));
      expect(upstream.requests.at(-1)!.headers.get("authorization")).toBe("Bearer sk-upstream-k2");
    }
  });

  test("a target with weight 0 is not chosen while another has weight", async () => {
    await createRule({ name: "weighted", cel_expression: forCase("weights"), targets: [{ provider: "openai", model: "never", weight: 0 }, { provider: "groq", model: "always", weight: 1 }] });
    for (let call = 0; call < 5; call++) expect(await routedTo(await chat(gw, undefined, {}, inCase("weights")))).toBe("groq/always");
  });

  test("targets are drawn by weight: 300 draws at 3:1 land within five standard deviations of 225:75", async () => {
    await createRule({ name: "three-to-one", cel_expression: forCase("three-to-one"), targets: [{ provider: "openai", model: "mostly", weight: 3 }, { provider: "groq", model: "sometimes", weight: 1 }] });
    const drawn: Record<string, number> = {};
    for (let call = 0; call < 300; call++) {
      const target = await routedTo(await chat(gw, undefined, {}, inCase("three-to-one")));
      drawn[target] = (drawn[target] ?? 0) + 1;
    }
    const spread = 5 * Math.sqrt(300 * 0.75 * 0.25);
    expect(Math.abs((drawn["openai/mostly"] ?? 0) - 225)).toBeLessThan(spread);
    expect(Math.abs((drawn["groq/sometimes"] ?? 0) - 75)).toBeLessThan(spread);
  });

  test("the rule's fallbacks are tried when its target fails", async () => {
    await createRule({ name: "with-fallback", cel_expression: forCase("fallback"), targets: [{ provider: "openai", model: "flaky" }], fallbacks: ["groq/steady"] });
    upstream.faults.push({ kind: "status", status: 400, message: "flaky refuses" });
    expect(await routedTo(await chat(gw, undefined, {}, inCase("fallback")))).toBe("groq/steady");
  });

  test("a target naming only a model no provider serves, for a model naming none either, is a 400 on model", async () => {
    await createRule({ name: "nowhere", cel_expression: 'model == "unroutable"', targets: [{ model: "served-by-none" }] });
    await expectGatewayError(await chat(gw, undefined, { model: "unroutable" }), 400, { param: "model", errorType: "caller_invalid_model" });
  });

  test("a rule's fallback whose provider was deleted since is a 400 on that fallback", async () => {
    const added = await gw.admin("/api/providers", { method: "POST", json: { provider: "xai", network_config: { base_url: upstream.baseUrl }, keys: [{ id: "x1", value: "sk-upstream-x1" }] } });
    expect(added.status).toBe(201);
    await createRule({ name: "doomed-fallback", cel_expression: forCase("doomed"), targets: [{ provider: "openai" }], fallbacks: ["groq/steady", "xai/grok-2"] });
    expect((await gw.admin("/api/providers/xai", { method: "DELETE" })).status).toBeLessThan(300);
    await expectGatewayError(await chat(gw, undefined, {}, inCase("doomed")), 400, { param: "fallbacks[1]", errorType: "caller_provider_not_configured" });
  });

  test("a rule cannot take a key beyond its allowed providers", async () => {
    const key = await createVirtualKey(gw, { name: "openai-bound", provider_configs: [{ provider: "openai" }] });
    await createRule({ name: "to-groq", cel_expression: forCase("bound"), targets: [{ provider: "groq", model: "elsewhere" }] });
    await expectGatewayError(await chat(gw, key.value, {}, inCase("bound")), 403, { errorType: "policy_provider_not_allowed" });
  });
});
