import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createVirtualKey } from "../governance/support";
import { startGateway, type TestGateway } from "../support/gateway";
import { loggedRequest } from "../support/logged-request";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

const PROVIDER_KEY = "sk-proj-Redact3dProviderKeyValue0123456789";

let upstream: MockOpenAI;
let gw: TestGateway;

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({ providers: { openai: { keys: [{ id: "live", value: PROVIDER_KEY, models: ["*"] }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } } } });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

const chat = (testCase: string, headers: Record<string, string> = {}) =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-gw-metadata-case": testCase, ...headers },
    body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
  });

describe("an upstream error that echoes a key reaches nobody with the key in it", () => {
  test("the provider key the attempt used is redacted from the client's error and the log's error_message", async () => {
    upstream.faults.push({ kind: "status", status: 401, message: `Incorrect API key provided: ${PROVIDER_KEY}. You can find your API key at https://platform.openai.com.` });
    const response = await chat("echoed-provider-key");
    expect(response.status).toBe(401);
    const text = await response.text();
    expect(text).toContain("Incorrect API key provided: [redacted]");
    expect(text).not.toContain(PROVIDER_KEY);
    const logged = await loggedRequest(gw, "echoed-provider-key");
    expect(logged.error_message).toContain("Incorrect API key provided: [redacted]");
    expect(JSON.stringify(logged)).not.toContain(PROVIDER_KEY);
  });

  test("a virtual key the upstream echoes is redacted as well", async () => {
    const key = await createVirtualKey(gw, { name: "echoed" });
    upstream.faults.push({ kind: "status", status: 400, message: `unexpected credential ${key.value} in the request` });
    const response = await chat("echoed-virtual-key", { "x-gw-vk": key.value });
    expect(response.status).toBe(400);
    const text = await response.text();
    expect(text).toContain("unexpected credential [redacted] in the request");
    expect(text).not.toContain(key.value);
    expect(JSON.stringify(await loggedRequest(gw, "echoed-virtual-key"))).not.toContain(key.value);
  });
});
