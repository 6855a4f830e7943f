import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { startGateway, type TestGateway } from "../support/gateway";
import { loggedRequest } from "../support/logged-request";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

/**
 * OpenAI's Evals API through the gateway, as the SDK calls it: an eval is created, run over inline
 * items, polled until graded, its output items read, then cancelled, updated and deleted, each call
 * with the gateway's key and logged as what it did.
 */

let openai: MockOpenAI;
let gw: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  openai = startMockOpenAI();
  gw = await startGateway({ providers: { openai: { keys: [{ id: "evals", value: "sk-evals-upstream" }], network_config: { base_url: openai.baseUrl } } } });
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0, defaultHeaders: { "x-gw-metadata-case": "evals" } });
});
afterAll(async () => {
  await gw.close();
  openai.stop();
});

const capitalsEval = () =>
  client.evals.create({
    name: "capitals",
    data_source_config: { type: "custom", item_schema: { type: "object", properties: { input: { type: "string" }, expected: { type: "string" } } }, include_sample_schema: true },
    testing_criteria: [{ type: "string_check", name: "contains", input: "{{sample.output_text}}", reference: "{{item.expected}}", operation: "ilike" }],
  });

const runOver = (evalId: string, items: Array<{ input: string; expected: string }>) =>
  client.evals.runs.create(evalId, {
    name: "first",
    data_source: { type: "completions", model: "gpt-4o-mini", input_messages: { type: "item_reference", item_reference: "item.input" }, source: { type: "file_content", content: items.map((item) => ({ item })) } },
  });

describe("evals OpenAI runs", () => {
  test("an eval is run over its items and graded; the run's output items are read", async () => {
    const evaluation = await capitalsEval();
    expect(openai.requests.at(-1)!.headers.get("authorization")).toBe("Bearer sk-evals-upstream");
    const run = await runOver(evaluation.id, [
      { input: "paris", expected: "paris" },
      { input: "rome", expected: "madrid" },
    ]);
    expect(run).toMatchObject({ eval_id: evaluation.id, status: "queued" });
    let polled = run;
    while (polled.status !== "completed") polled = await client.evals.runs.retrieve(run.id, { eval_id: evaluation.id });
    expect(polled.result_counts).toEqual({ total: 2, passed: 1, failed: 1, errored: 0 });

    const items = [];
    for await (const item of client.evals.runs.outputItems.list(run.id, { eval_id: evaluation.id })) items.push(item);
    expect(items.map((item) => [item.datasource_item.input, item.status])).toEqual([
      ["paris", "pass"],
      ["rome", "fail"],
    ]);
    expect((await client.evals.runs.outputItems.retrieve(items[1]!.id, { eval_id: evaluation.id, run_id: run.id })).status).toBe("fail");
    expect(await loggedRequest(gw, "evals")).toMatchObject({ provider: "openai", selected_key_id: "evals", status: "success" });
  });

  test("a run is cancelled and deleted, the eval renamed, listed and deleted", async () => {
    const evaluation = await capitalsEval();
    const run = await runOver(evaluation.id, [{ input: "oslo", expected: "oslo" }]);
    expect((await client.evals.runs.cancel(run.id, { eval_id: evaluation.id })).status).toBe("canceled");
    const runs = [];
    for await (const listed of client.evals.runs.list(evaluation.id)) runs.push(listed.id);
    expect(runs).toEqual([run.id]);
    await client.evals.runs.delete(run.id, { eval_id: evaluation.id });
    expect(openai.evals.get(evaluation.id)!.runs.size).toBe(0);

    expect((await client.evals.update(evaluation.id, { name: "capitals, renamed" })).name).toBe("capitals, renamed");
    const evals = [];
    for await (const listed of client.evals.list()) evals.push(listed.id);
    expect(evals).toContain(evaluation.id);
    await client.evals.delete(evaluation.id);
    expect(openai.evals.has(evaluation.id)).toBe(false);
  });
});
