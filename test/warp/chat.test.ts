import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { expectGatewayError } from "../support/gateway-error";
import { generateFacts, type LogFact, recordFacts } from "../logs/seed-logs";
import { answerOf, chat, type ChatEvent, eventOrder, SECRETS, startWarpTestbed, usableConfig, type WarpTestbed, writeConfig } from "./support";

let bed: WarpTestbed;
const anchor = new Date();
/** 80 requests, one every 23 minutes back from now: about 62 of them in the last 24 hours. */
const facts = generateFacts(80, anchor);
const DAY_MS = 86_400_000;
const lastDay = (fact: LogFact) => fact.timestamp.getTime() >= Date.now() - DAY_MS;

beforeAll(async () => {
  bed = await startWarpTestbed();
  await recordFacts(bed.gw.databaseUrl, facts);
});
afterAll(() => bed.close());
beforeEach(async () => {
  await writeConfig(bed.gw, usableConfig({ system_prompt_suffix: "Always answer in French." }));
  bed.model.script = [];
  bed.model.afterScript = { text: "done" };
  bed.model.chats.length = 0;
});

const toolEnds = (events: ChatEvent[]) => events.filter((event) => event.event === "tool_call_end").map((event) => event.data);
const toolMessages = (index: number) => bed.model.chats[index]!.messages.filter((message) => message.role === "tool").map((message) => JSON.parse(String(message.content)));

describe("503 with reason not_configured while configured is false", () => {
  for (const [label, body] of [
    ["an empty configuration", {}],
    ["a complete one that is disabled", usableConfig({ enabled: false })],
  ] as const) {
    test(label, async () => {
      await writeConfig(bed.gw, body);
      const { response } = await chat(bed.gw, { message: "how many requests failed today?" });
      const error = await expectGatewayError(response, 503, { errorType: "gateway_warp_not_configured" });
      expect(error.extra_fields).toMatchObject({ reason: "not_configured" });
      expect(error.error.code).toBe("not_configured");
      expect(bed.model.chats).toHaveLength(0);
    });
  }
});

describe("the tool loop", () => {
  test("tool calls run in the order the model asks, their results are fed back, and the events come in order", async () => {
    bed.model.script = [
      { tools: [{ name: "count_logs", arguments: { status: ["error"] } }] },
      { tools: [{ name: "query_logs", arguments: { status: ["error"], limit: 2 } }] },
      { text: "Il y a eu des erreurs." },
    ];
    const { response, events } = await chat(bed.gw, { message: "How many requests failed today?" });
    expect(response.status).toBe(200);
    expect(eventOrder(events)).toEqual(["start", "tool_call_start", "tool_call_end", "tool_call_start", "tool_call_end", "delta", "done"]);
    expect(answerOf(events)).toBe("Il y a eu des erreurs.");

    const failedToday = facts.filter((fact) => fact.status === "error" && lastDay(fact));
    const [counted, listed] = toolEnds(events);
    expect(counted).toMatchObject({ name: "count_logs", ok: true, result: { count: failedToday.length } });
    expect(listed).toMatchObject({ name: "query_logs", ok: true, result: { total_matching: failedToday.length, returned: 2 } });
    const listedIds = (listed!.result as { logs: Array<{ id: string }> }).logs.map((log) => log.id);
    expect(listedIds).toEqual(failedToday.slice(0, 2).map((fact) => fact.id));

    // Each call saw the results of the ones before it, under the tool call ids the model gave.
    expect(bed.model.chats).toHaveLength(3);
    expect(toolMessages(0)).toEqual([]);
    expect(toolMessages(1)).toEqual([counted!.result]);
    expect(toolMessages(2)).toEqual([counted!.result, listed!.result]);
    const last = bed.model.chats[2]!.messages;
    expect(last.filter((message) => message.role === "tool").map((message) => message.tool_call_id)).toEqual(events.filter((event) => event.event === "tool_call_start").map((event) => event.data.id as string));
    expect(events.at(-1)!.data).toMatchObject({ finish_reason: "stop", iterations: 2, usage: { total_tokens: 75 } });
  });

  test("the built-in system prompt comes first, with system_prompt_suffix appended", async () => {
    await chat(bed.gw, { message: "hello" });
    const system = bed.model.chats[0]!.messages[0]!;
    expect(system.role).toBe("system");
    expect(String(system.content)).toStartWith("You are Warp");
    expect(String(system.content)).toEndWith("\n\nAlways answer in French.");
    expect(bed.model.chats[0]!.messages[1]).toEqual({ role: "user", content: "hello" });
  });

  test("max_iterations caps the rounds of tool calls; the last call switches tools off so the model answers", async () => {
    await writeConfig(bed.gw, usableConfig({ max_iterations: 2 }));
    bed.model.afterScript = { tools: [{ name: "count_logs" }] };
    const { events } = await chat(bed.gw, { message: "keep counting" });
    expect(eventOrder(events)).toEqual(["start", "tool_call_start", "tool_call_end", "tool_call_start", "tool_call_end", "delta", "done"]);
    expect(bed.model.chats.map((request) => request.body.tool_choice)).toEqual(["auto", "auto", "none"]);
    expect(answerOf(events)).toBe("answering without tools");
    expect(events.at(-1)!.data).toMatchObject({ finish_reason: "max_iterations", iterations: 2 });
  });

  test("a request_timeout_seconds bound ends a call the model never answers: error, then done", async () => {
    await writeConfig(bed.gw, usableConfig({ request_timeout_seconds: 1 }));
    bed.model.script = [{ hang: true }];
    const started = performance.now();
    const { events } = await chat(bed.gw, { message: "are you there?" });
    const elapsed = performance.now() - started;
    expect(eventOrder(events)).toEqual(["start", "error", "done"]);
    expect(events[1]!.data).toMatchObject({ status_code: 504, extra_fields: { error_type: "provider_timeout" } });
    expect(events[2]!.data).toMatchObject({ finish_reason: "error", iterations: 0 });
    expect(elapsed).toBeGreaterThanOrEqual(1_000);
    expect(elapsed).toBeLessThan(5_000);
    // The gateway gave up on the upstream call, not just on waiting for it.
    await bed.model.chats[0]!.aborted;
  });

  test("a bound longer than a timer can hold (a month) waits for the model instead of ending the call at once", async () => {
    await writeConfig(bed.gw, usableConfig({ request_timeout_seconds: 30 * 86_400 }));
    const { events } = await chat(bed.gw, { message: "are you there?" });
    expect(eventOrder(events)).toEqual(["start", "delta", "done"]);
    expect(answerOf(events)).toBe("done");
  });

  test("the bound applies to each call, not to the whole turn", async () => {
    await writeConfig(bed.gw, usableConfig({ request_timeout_seconds: 1 }));
    bed.model.script = [{ tools: [{ name: "count_logs" }] }, { tools: [{ name: "count_logs" }] }, { hang: true }];
    const { events } = await chat(bed.gw, { message: "count twice" });
    expect(eventOrder(events)).toEqual(["start", "tool_call_start", "tool_call_end", "tool_call_start", "tool_call_end", "error", "done"]);
    expect(events.at(-1)!.data).toMatchObject({ finish_reason: "error", iterations: 2 });
  });

  test("a tool call with invalid arguments is answered with the error, and the loop goes on", async () => {
    bed.model.script = [{ tools: [{ name: "query_logs", arguments: { limit: 26 } }, { name: "no_such_tool" }] }, { text: "Sorry." }];
    const { events } = await chat(bed.gw, { message: "list a lot" });
    const [tooMany, unknown] = toolEnds(events);
    expect(tooMany).toMatchObject({ name: "query_logs", ok: false, error: expect.stringContaining("limit") });
    expect(unknown).toMatchObject({ name: "no_such_tool", ok: false });
    expect(bed.model.chats[1]!.messages.filter((message) => message.role === "tool").map((message) => String(message.content))).toEqual([
      expect.stringMatching(/^error: argument 'limit'/),
      "error: there is no tool 'no_such_tool'",
    ]);
    expect(answerOf(events)).toBe("Sorry.");
  });
});

describe("which model answers", () => {
  beforeEach(async () => {
    await writeConfig(bed.gw, usableConfig({ api_key_id: "openai-backup", additional_models: [{ provider: "house-llm", model: "big" }, { provider: "openai", model: "gpt-4o", api_key_id: "openai-main" }] }));
  });

  test("the default answers when the request names no model, with its pinned key", async () => {
    const { events } = await chat(bed.gw, { message: "hi" });
    expect(events[0]!.data).toMatchObject({ provider: "openai", model: "gpt-4o-mini" });
    expect(bed.model.chats[0]!.body.model).toBe("gpt-4o-mini");
    expect(bed.model.chats[0]!.authorization).toBe(`Bearer ${SECRETS[1]}`);
  });

  test("an additional model answers when named, with its own key or its provider's pool", async () => {
    await chat(bed.gw, { message: "hi", provider: "openai", model: "gpt-4o" });
    await chat(bed.gw, { message: "hi", provider: "house-llm", model: "big" });
    expect(bed.model.chats.map((request) => [request.body.model, request.authorization])).toEqual([
      ["gpt-4o", `Bearer ${SECRETS[0]}`],
      ["big", `Bearer ${SECRETS[2]}`],
    ]);
  });

  const refused: Array<[string, Record<string, unknown>, string]> = [
    ["a model the configuration does not list", { provider: "openai", model: "gpt-4.1" }, "model"],
    ["a listed model under another provider", { provider: "house-llm", model: "gpt-4o" }, "model"],
    ["a model without its provider", { model: "gpt-4o" }, "provider"],
    ["a provider without a model", { provider: "openai" }, "model"],
  ];
  for (const [label, named, param] of refused) {
    test(`${label} is a 400`, async () => {
      const { response } = await chat(bed.gw, { message: "hi", ...named });
      await expectGatewayError(response, 400, { param });
      expect(bed.model.chats).toHaveLength(0);
    });
  }

  test("a blank question is a 400", async () => {
    const { response } = await chat(bed.gw, { message: "   " });
    await expectGatewayError(response, 400, { param: "message" });
  });
});

describe("the telemetry tools", () => {
  const run = async (name: string, args: Record<string, unknown>) => {
    bed.model.script = [{ tools: [{ name, arguments: args }] }, { text: "ok" }];
    const { events } = await chat(bed.gw, { message: `run ${name}` });
    const [end] = toolEnds(events);
    expect(end).toMatchObject({ name, ok: true });
    return end!.result as Record<string, unknown>;
  };

  test("a question without a range looks back 24 hours; a range looks further", async () => {
    const today = await run("query_logs", { limit: 25 });
    const expectedToday = facts.filter(lastDay);
    expect(today.total_matching).toBe(expectedToday.length);
    expect((today.logs as Array<{ id: string }>).map((log) => log.id)).toEqual(expectedToday.slice(0, 25).map((fact) => fact.id));
    const week = await run("count_logs", { period: "7d" });
    expect(week.count).toBe(facts.length);
  });

  test("query_logs returns at most 25 rows, without content", async () => {
    const result = await run("query_logs", { period: "7d", limit: 25, sort_by: "latency", order: "desc" });
    const logs = result.logs as Array<Record<string, unknown>>;
    expect(logs).toHaveLength(25);
    const slowest = [...facts].sort((a, b) => b.latencyMs - a.latencyMs).slice(0, 25);
    expect(logs.map((log) => log.latency)).toEqual(slowest.map((fact) => fact.latencyMs));
    for (const log of logs) expect(log).not.toHaveProperty("request_content");
  });

  test("filters of 4.10 narrow the count: providers, models, virtual keys, metadata, tokens", async () => {
    const matching = facts.filter((fact) => lastDay(fact) && fact.provider === "openai" && fact.virtualKeyId === "vk-a" && fact.metadata.env === "prod" && fact.inputTokens + fact.outputTokens >= 500);
    const result = await run("count_logs", { providers: ["openai"], virtual_key_ids: ["vk-a"], metadata: { env: "prod" }, min_tokens: 500 });
    expect(result.count).toBe(matching.length);
  });

  test("get_log shows one log with its content", async () => {
    const fact = facts[3]!;
    const result = await run("get_log", { id: fact.id });
    expect(result).toMatchObject({ id: fact.id, provider: fact.provider, model: fact.model });
    expect(String(result.request_content)).toContain(fact.prompt);
  });

  test("get_metrics totals the window and groups it by provider or by model", async () => {
    const today = facts.filter(lastDay);
    const totals = await run("get_metrics", {});
    expect(totals).toMatchObject({ total_requests: today.length, error_count: today.filter((fact) => fact.status === "error").length });
    const byProvider = await run("get_metrics", { group_by: "provider" });
    const expected = [...new Set(today.map((fact) => fact.provider))].map((provider) => ({ provider, total_requests: today.filter((fact) => fact.provider === provider).length }));
    expect((byProvider.rows as Array<Record<string, unknown>>).map(({ provider, total_requests }) => ({ provider, total_requests }))).toEqual(expect.arrayContaining(expected));
    expect(byProvider.rows).toHaveLength(expected.length);
    const byModel = await run("get_metrics", { group_by: "model" });
    const sum = (byModel.rows as Array<{ total_requests: number }>).reduce((total, row) => total + row.total_requests, 0);
    expect(sum).toBe(today.length);
  });

  test("get_model_rankings ranks models by requests", async () => {
    const result = await run("get_model_rankings", { period: "7d", limit: 2 });
    const rankings = result.rankings as Array<{ provider: string; model: string; total_requests: number }>;
    const counts = new Map<string, number>();
    for (const fact of facts) counts.set(`${fact.provider}/${fact.model}`, (counts.get(`${fact.provider}/${fact.model}`) ?? 0) + 1);
    const top = [...counts.values()].sort((a, b) => b - a).slice(0, 2);
    expect(rankings.map((row) => row.total_requests)).toEqual(top);
  });

  test("a result larger than the cap is cut, and says so", async () => {
    const long = { ...facts[0]!, id: "long-prompt", prompt: "lorem ipsum ".repeat(2_000), timestamp: new Date() };
    await recordFacts(bed.gw.databaseUrl, [long]);
    const result = await run("get_log", { id: "long-prompt" });
    expect(String(result.request_content).length).toBeLessThan(4_100);
    expect(String(result.request_content)).toEndWith("more characters]");
  });
});
