import { afterAll, afterEach, beforeAll, describe, expect, setSystemTime, test } from "bun:test";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { fakeSystemDns } from "../support/system-dns";

// No test here injects a resolver: every name goes through the system's, answered by this table.
const dns = fakeSystemDns();

const chat = (gw: TestGateway, model: string) =>
  fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }) });

const provider = (name: string, baseUrl: string) => ({
  provider: name,
  custom_provider_config: { base_provider_type: "openai" },
  keys: [{ name: "k", value: "sk-system-dns", models: ["*"] }],
  network_config: { base_url: baseUrl, max_retries: 0 },
});

afterEach(() => setSystemTime());

describe("a provider at a name: the system's answer decides where the call goes", () => {
  let gw: TestGateway;
  let upstream: MockOpenAI;
  let upstreamOnSix: MockOpenAI;
  let port: string;
  beforeAll(async () => {
    upstream = startMockOpenAI();
    port = new URL(upstream.url).port;
    upstreamOnSix = startMockOpenAI({ hostname: "::1", port: Number(port) });
    gw = await startGateway({ network: { allow_private_addresses: true } });
  });
  afterAll(async () => {
    await gw.close();
    upstream.stop();
    upstreamOnSix.stop();
  });

  const addProvider = async (name: string, host: string) => {
    expect((await gw.admin("/api/providers", { method: "POST", json: provider(name, `http://${host}:${port}/v1`) })).status).toBe(201);
  };

  test("the call goes to the address the system answers, under the name's own Host", async () => {
    dns.table.set("llm-four.system.test", ["127.0.0.1"]);
    await addProvider("four", "llm-four.system.test");
    expect((await chat(gw, "four/gpt-4o-mini")).status).toBe(200);
    expect(upstream.requests.at(-1)!.headers.get("host")).toBe(`llm-four.system.test:${port}`);
  });

  test("of several addresses, the first in the system's own order is called; an IPv6 one too", async () => {
    dns.table.set("llm-six.system.test", ["::1", "127.0.0.1"]);
    await addProvider("six", "llm-six.system.test");
    const [onFour, onSix] = [upstream.requests.length, upstreamOnSix.requests.length];
    expect((await chat(gw, "six/gpt-4o-mini")).status).toBe(200);
    expect(upstreamOnSix.requests.length - onSix).toBe(1);
    expect(upstream.requests.length).toBe(onFour);
    expect(upstreamOnSix.requests.at(-1)!.headers.get("host")).toBe(`llm-six.system.test:${port}`);
  });

  test("an answer is kept 30 seconds: a name that moves to the metadata address is refused from then on, not before", async () => {
    const start = Date.now();
    setSystemTime(start);
    dns.table.set("llm-moving.system.test", ["127.0.0.1"]);
    await addProvider("moving", "llm-moving.system.test");
    expect((await chat(gw, "moving/gpt-4o-mini")).status).toBe(200);
    const asked = dns.asked("llm-moving.system.test");
    dns.table.set("llm-moving.system.test", ["169.254.169.254"]);
    setSystemTime(start + 29_999);
    expect((await chat(gw, "moving/gpt-4o-mini")).status).toBe(200);
    expect(dns.asked("llm-moving.system.test")).toBe(asked);
    setSystemTime(start + 30_000);
    const refused = await expectGatewayError(await chat(gw, "moving/gpt-4o-mini"), 502, { errorType: "gateway_upstream_address_refused" });
    expect(refused.error.message).toContain("llm-moving.system.test resolves to 169.254.169.254: ");
    expect(dns.asked("llm-moving.system.test")).toBe(asked + 1);
  });

  test("a name that does not resolve is not kept: it is called as soon as it resolves", async () => {
    await addProvider("later", "llm-later.system.test");
    const unresolved = await expectGatewayError(await chat(gw, "later/gpt-4o-mini"), 502, {});
    expect(JSON.stringify(unresolved)).toContain("could not resolve llm-later.system.test: getaddrinfo ENOTFOUND llm-later.system.test");
    dns.table.set("llm-later.system.test", ["127.0.0.1"]);
    expect((await chat(gw, "later/gpt-4o-mini")).status).toBe(200);
  });
});

describe("the answers kept are the last 255 names'", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({});
  });
  afterAll(() => gw.close());

  // A webhook endpoint's host is looked up when it is written, to refuse a private address.
  let written = 0;
  const createEndpoint = (host: string) => gw.admin("/api/webhooks", { method: "POST", json: { name: `hook-${++written}`, url: `https://${host}/in` } });

  test("the oldest name is asked again once 255 others were looked up after it, and only then", async () => {
    const names = Array.from({ length: 256 }, (_, index) => `hooks-${index}.system.test`);
    for (const name of names) dns.table.set(name, ["93.184.216.34"]);
    const [oldest, ...later] = names;
    expect((await createEndpoint(oldest!)).status).toBe(201);
    for (const name of later.slice(0, 254)) expect((await createEndpoint(name)).status).toBe(201);
    dns.table.set(oldest!, ["169.254.169.254"]);
    expect((await createEndpoint(oldest!)).status).toBe(201);
    expect(dns.asked(oldest!)).toBe(1);
    expect((await createEndpoint(later[254]!)).status).toBe(201);
    await expectGatewayError(await createEndpoint(oldest!), 400, { param: "url", errorType: "caller_receiver_refused" });
    expect(dns.asked(oldest!)).toBe(2);
  });
});
