import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { startGateway, type TestGateway } from "../support/gateway";
import { loggedRequest } from "../support/logged-request";
import { eventually } from "../support/eventually";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { parsePrometheus, valueOf } from "../telemetry/prometheus-text";

// A request refused for want of a valid virtual key is logged without its content (the default),
// or not at all (`logs_store.refused_requests: "off"`): an anonymous caller cannot fill the log.

let upstream: MockOpenAI;
let gw: TestGateway;
let virtualKey: string;

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({ enforce_auth_on_inference: true, telemetry: { metrics_allowlist: ["127.0.0.1", "::1"] }, logs_store: { content_logging: true }, providers: { openai: { keys: [{ id: "k", value: "sk-k" }], network_config: { base_url: upstream.baseUrl } } } });
  virtualKey = ((await (await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name: "caller" } })).json()) as { virtual_key: { value: string } }).virtual_key.value;
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

const secretText = "an anonymous body the log must not keep";
const ask = (apiKey: string, testCase: string) =>
  new OpenAI({ baseURL: `${gw.url}/v1`, apiKey, maxRetries: 0 }).chat.completions
    .create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: secretText }] }, { headers: { "x-gw-metadata-case": testCase } })
    .catch((error: unknown) => error);

/** A request as a client sends it raw, tagged for the log. */
const post = (path: string, body: string, testCase: string) =>
  fetch(`${gw.url}${path}`, { method: "POST", headers: { authorization: `Bearer ${virtualKey}`, "content-type": "application/json", "x-gw-metadata-case": testCase }, body });
const rowsOf = async (testCase: string) => ((await (await gw.admin(`/api/logs?metadata_case=${testCase}&limit=1000`)).json()) as { logs: unknown[]; total_count?: number }).logs;
const unlogged = async () => valueOf(parsePrometheus(await (await fetch(`${gw.url}/metrics`)).text()), "gateway_refused_requests_unlogged_total") ?? 0;

describe("requests the gateway refuses before its pipeline", () => {
  test("a body its route refuses is a row with its status, error and body, counted among the errors", async () => {
    const body = JSON.stringify({ model: "anthropic/claude-sonnet-4-5", max_tokens: 0, messages: [{ role: "user", content: "a refused body" }] });
    expect((await post("/anthropic/v1/messages", body, "refused-schema")).status).toBe(400);
    const row = await loggedRequest(gw, "refused-schema");
    expect(row).toMatchObject({ status: "error", status_code: 400, error_type: "caller_invalid_request", error_message: "max_tokens must be an integer of at least 1", model: "anthropic/claude-sonnet-4-5", virtual_key_name: "caller" });
    expect(JSON.stringify(row.request_content)).toContain("a refused body");
    const stats = (await (await gw.admin("/api/logs/stats?metadata_case=refused-schema")).json()) as { error_count: number; total_requests?: number };
    expect(stats.error_count).toBe(1);
  });

  test("a body that is not JSON is a row too, without content", async () => {
    expect((await post("/v1/chat/completions", "{not json", "refused-json")).status).toBe(400);
    expect(await loggedRequest(gw, "refused-json")).toMatchObject({ status_code: 400, error_type: "caller_invalid_json", request_content: null });
  });

  test("an unknown model, refused by the pipeline, is one row with its error", async () => {
    const unknown = JSON.stringify({ model: "nowhere/model-x", messages: [{ role: "user", content: "hi" }] });
    expect((await post("/v1/chat/completions", unknown, "refused-model")).status).toBe(400);
    expect(await loggedRequest(gw, "refused-model")).toMatchObject({ status: "error", status_code: 400, error_type: "caller_invalid_model" });
    expect(await rowsOf("refused-model")).toHaveLength(1);
  });

  test("a flood of refused requests is logged at a bounded rate; the rest are counted in /metrics", async () => {
    const before = await unlogged();
    const sent = 300;
    const answers = await Promise.all(Array.from({ length: sent }, () => post("/v1/chat/completions", "{not json", "flood")));
    expect(answers.every((answer) => answer.status === 400)).toBe(true);
    const dropped = (await unlogged()) - before;
    expect(dropped).toBeGreaterThan(0);
    // Every refused request is either a row or counted as left out.
    await eventually(async () => (await rowsOf("flood")).length, (logged) => logged === sent - dropped);
  });
});

describe("refused inference requests in the log", () => {
  test("by default a 401 is logged as an error without its content; an admitted request keeps its content", async () => {
    expect(await ask("sk-gw-not-a-key", "refused-default")).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(await loggedRequest(gw, "refused-default")).toMatchObject({ status: "error", status_code: 401, error_type: "caller_virtual_key_invalid", request_content: null });
    await ask(virtualKey, "admitted");
    expect(JSON.stringify((await loggedRequest(gw, "admitted")).request_content)).toContain(secretText);
  });

  test("refused_requests: off (changed while running) logs no row for them", async () => {
    const put = await gw.admin("/api/config", { method: "PUT", json: { logs_store: { refused_requests: "off" } } });
    expect(put.status).toBe(200);
    expect(((await (await gw.admin("/api/config")).json()) as { logs_store: Record<string, unknown> }).logs_store.refused_requests).toBe("off");
    expect(await ask("sk-gw-not-a-key", "refused-off")).toBeInstanceOf(OpenAI.AuthenticationError);
    // Rows are written in order: once a later request's row is in, the refused one would be too.
    await ask(virtualKey, "after-refused-off");
    await loggedRequest(gw, "after-refused-off");
    const rows = (await (await gw.admin("/api/logs?metadata_case=refused-off")).json()) as { logs: unknown[] };
    expect(rows.logs).toHaveLength(0);
  });

  test("a value that is not a setting is a 400 naming it", async () => {
    const response = await gw.admin("/api/config", { method: "PUT", json: { logs_store: { refused_requests: "sometimes" } } });
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain("refused_requests");
  });
});
