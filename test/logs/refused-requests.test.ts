import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { startGateway, type TestGateway } from "../support/gateway";
import { loggedRequest } from "../support/logged-request";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

// A request refused for want of a valid virtual key is logged without its content (the default),
// or not at all (`logs_store.refused_requests: "off"`): an anonymous caller cannot fill the log.

let upstream: MockOpenAI;
let gw: TestGateway;
let virtualKey: string;

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({ enforce_auth_on_inference: true, logs_store: { content_logging: true }, providers: { openai: { keys: [{ id: "k", value: "sk-k" }], network_config: { base_url: upstream.baseUrl } } } });
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
