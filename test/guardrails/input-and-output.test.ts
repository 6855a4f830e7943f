import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { openAIProvider } from "../governance/support";
import { startGateway, type TestGateway } from "../support/gateway";
import { expectGatewayError } from "../support/gateway-error";
import { loggedRequest } from "../support/logged-request";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { CARD, EMAIL, keyWithGuardrail, OPENAI_KEY } from "./support";

const METRICS_TOKEN = "guardrail-metrics";
let upstream: MockOpenAI;
let gw: TestGateway;

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({ providers: { openai: openAIProvider(upstream) }, telemetry: { metrics_token: METRICS_TOKEN } });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

const lastUpstreamText = () => JSON.stringify(upstream.requests.at(-1)!.body.messages);

describe("redact replaces personal data before the upstream sees it", () => {
  test("an email and a card number reach the upstream as typed placeholders and come back restored", async () => {
    const { client } = await keyWithGuardrail(gw, "reversible", {
      restore_redacted: true,
      checks: [
        { type: "email", action: "redact" },
        { type: "payment_card", action: "redact" },
      ],
    });
    const prompt = `Mail ${EMAIL} the receipt for card ${CARD}, then mail ${EMAIL} again.`;
    const reply = await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: prompt }] });
    const seen = lastUpstreamText();
    expect(seen).not.toContain(EMAIL);
    expect(seen).not.toContain("4111");
    expect(seen).toContain("Mail [EMAIL_1] the receipt for card [CARD_1], then mail [EMAIL_1] again.");
    // The mock echoes what it got: the client reads its own values again.
    expect(reply.choices[0]!.message.content).toBe(`echo: ${prompt}`);
  });

  test("without restore_redacted the reply keeps the placeholders", async () => {
    const { client } = await keyWithGuardrail(gw, "one-way", { checks: [{ type: "email", action: "redact" }] });
    const reply = await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: `write to ${EMAIL}` }] });
    expect(reply.choices[0]!.message.content).toBe("echo: write to [EMAIL_1]");
  });

  test("a number failing the Luhn check is not a card and passes untouched", async () => {
    const { client } = await keyWithGuardrail(gw, "luhn", { checks: [{ type: "payment_card", action: "redact" }] });
    await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "order 4111 1111 1111 1112" }] });
    expect(lastUpstreamText()).toContain("4111 1111 1111 1112");
  });
});

describe("every built-in detector finds its kind and confirms checksums", () => {
  test("one prompt with one of each gets one placeholder of each type; look-alikes that fail their checksum pass", async () => {
    const checks = ["email", "phone", "payment_card", "iban", "national_id", "ip_address", "api_key", "private_key", "jwt"].map((type) => ({ type, action: "redact" }));
    const { client } = await keyWithGuardrail(gw, "every-detector", { checks });
    const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
    const prompt = [
      `mail ${EMAIL}`,
      "call +44 20 7946 0958 or (415) 555-0100 or 020 7946 0958",
      `card ${CARD}`,
      "iban GB82 WEST 1234 5698 7654 32",
      "dni 12345678Z",
      "cpf 529.982.247-25",
      "host 192.168.10.20 or 2001:db8::8a2e:370:7334",
      `key ${OPENAI_KEY} and AKIAIOSFODNN7EXAMPLE`,
      "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----",
      `token ${jwt}`,
      "not secrets: iban GB82 WEST 1234 5698 7654 33, dni 12345678A, cpf 529.982.247-26, version 1.2.3.4.5, 999.1.1.1",
    ].join("; ");
    await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: prompt }] });
    const seen = upstream.requests.at(-1)!.body.messages as Array<{ content: string }>;
    expect(seen[0]!.content).toBe(
      [
        "mail [EMAIL_1]",
        "call [PHONE_1] or [PHONE_2] or [PHONE_3]",
        "card [CARD_1]",
        "iban [IBAN_1]",
        "dni [NATIONAL_ID_1]",
        "cpf [NATIONAL_ID_2]",
        "host [IP_1] or [IP_2]",
        "key [API_KEY_1] and [API_KEY_2]",
        "[PRIVATE_KEY_1]",
        "token [JWT_1]",
        "not secrets: iban GB82 WEST 1234 5698 7654 33, dni 12345678A, cpf 529.982.247-26, version 1.2.3.4.5, 999.1.1.1",
      ].join("; "),
    );
  });
});

describe("block refuses the request before any upstream call", () => {
  test("a prompt with a private key gets the gateway error naming the guardrail and check, and the upstream is never called", async () => {
    const { key } = await keyWithGuardrail(gw, "no-keys", { checks: [{ type: "private_key", name: "private-keys" }, { type: "api_key" }] });
    const before = upstream.requests.length;
    const secret = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1234\n-----END RSA PRIVATE KEY-----";
    const response = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-gw-vk": key.value },
      body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: `deploy with ${secret}` }] }),
    });
    const body = await expectGatewayError(response, 400, { errorType: "policy_guardrail_blocked" });
    expect(body.error.message).toContain("'no-keys'");
    expect(body.error.message).toContain("'private-keys'");
    expect(JSON.stringify(body)).not.toContain("MIIEowIBAAKCAQEA1234");
    expect(upstream.requests.length).toBe(before);
  });

  test("the SDK raises the block as a 400", async () => {
    const { client } = await keyWithGuardrail(gw, "sdk-block", { checks: [{ type: "api_key" }] });
    const error = await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: `use ${OPENAI_KEY}` }] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
  });
});

describe("input checks read every string a provider receives, as a reader would see it", () => {
  const ZERO_WIDTH_SPACE = "\u200b";
  const SOFT_HYPHEN = "\u00ad";
  const half = OPENAI_KEY.length / 2;

  /** Whether a request with these messages (and other fields) is refused by an api_key block, before any upstream call. */
  async function blocked(name: string, body: Record<string, unknown>): Promise<boolean> {
    const { key } = await keyWithGuardrail(gw, name, { checks: [{ type: "api_key" }] });
    const before = upstream.requests.length;
    const response = await fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json", "x-gw-vk": key.value }, body: JSON.stringify({ model: "openai/gpt-4o-mini", ...body }) });
    await response.body?.cancel();
    return response.status === 400 && upstream.requests.length === before;
  }
  const user = (content: unknown) => ({ role: "user", content });

  test("a key in an assistant's tool call arguments", async () => {
    const call = { id: "call_1", type: "function", function: { name: "deploy", arguments: JSON.stringify({ token: OPENAI_KEY }) } };
    expect(await blocked("in-tool-arguments", { messages: [user("deploy it"), { role: "assistant", content: null, tool_calls: [call] }, { role: "tool", tool_call_id: "call_1", content: "done" }] })).toBe(true);
  });

  test("a key in the user and name fields", async () => {
    expect(await blocked("in-user-field", { messages: [user("hi")], user: OPENAI_KEY })).toBe(true);
    expect(await blocked("in-name-field", { messages: [{ role: "user", name: OPENAI_KEY, content: "hi" }] })).toBe(true);
  });

  test("a key glued to the word before it; a hyphenated word that merely contains 'sk-' passes", async () => {
    expect(await blocked("glued-key", { messages: [user(`mykey${OPENAI_KEY}`)] })).toBe(true);
    expect(await blocked("not-a-key", { messages: [user("see the risk-management-framework-overview page")] })).toBe(false);
  });

  test("a key split across two messages, or across two content parts", async () => {
    expect(await blocked("split-messages", { messages: [user(`my key is ${OPENAI_KEY.slice(0, half)}`), user(OPENAI_KEY.slice(half))] })).toBe(true);
    const parts = [{ type: "text", text: `my key is ${OPENAI_KEY.slice(0, half)}` }, { type: "text", text: OPENAI_KEY.slice(half) }];
    expect(await blocked("split-parts", { messages: [user(parts)] })).toBe(true);
  });

  test("a key with a zero-width space or a soft hyphen inside", async () => {
    expect(await blocked("zero-width", { messages: [user(`key ${OPENAI_KEY.slice(0, half)}${ZERO_WIDTH_SPACE}${OPENAI_KEY.slice(half)}`)] })).toBe(true);
    expect(await blocked("soft-hyphen", { messages: [user(`key ${OPENAI_KEY.slice(0, half)}${SOFT_HYPHEN}${OPENAI_KEY.slice(half)}`)] })).toBe(true);
  });

  test("a redacted key split across two parts reaches the upstream as one placeholder, no piece of it left", async () => {
    const { client } = await keyWithGuardrail(gw, "split-redact", { checks: [{ type: "api_key", action: "redact" }] });
    const parts = [{ type: "text" as const, text: `my key is ${OPENAI_KEY.slice(0, half)}` }, { type: "text" as const, text: `${OPENAI_KEY.slice(half)} ok` }];
    await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: parts }] });
    const seen = upstream.requests.at(-1)!.body.messages as Array<{ content: Array<{ text: string }> }>;
    expect(seen[0]!.content.map((part) => part.text)).toEqual(["my key is [API_KEY_1]", " ok"]);
  });

  test("a key in an Anthropic tool_use block's input, through the Anthropic SDK", async () => {
    const { key } = await keyWithGuardrail(gw, "in-tool-use", { checks: [{ type: "api_key" }] });
    const client = new Anthropic({ baseURL: `${gw.url}/anthropic`, apiKey: key.value, maxRetries: 0 });
    const messages: Anthropic.MessageParam[] = [
      { role: "user", content: "deploy it" },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "deploy", input: { token: OPENAI_KEY } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "done" }] },
    ];
    const error = await client.messages.create({ model: "openai/gpt-4o-mini", max_tokens: 50, messages }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
  });
});

describe("no input stalls the gateway", () => {
  test("20,000 private key headers without a footer, and a 200 KB word, are scanned in linear time", async () => {
    const { client } = await keyWithGuardrail(gw, "pathological", { checks: [{ type: "private_key", action: "redact" }, { type: "email", action: "redact" }, { type: "api_key", action: "redact" }] });
    const content = `${"-----BEGIN RSA PRIVATE KEY----- x ".repeat(20_000)} ${"sk-".repeat(70_000)}@`;
    const started = performance.now();
    const reply = await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }] });
    // A scan from every header to the end of the text would take minutes.
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(reply.choices[0]!.message.content).toStartWith("echo: -----BEGIN RSA PRIVATE KEY----- x");
  });
});

describe("a policy attached to a virtual key applies to that key only", () => {
  test("another key's identical request passes unredacted", async () => {
    await keyWithGuardrail(gw, "scoped", { checks: [{ type: "email", action: "redact" }] });
    const { client: other } = await keyWithGuardrail(gw, "other-scope", { checks: [{ type: "jwt" }] });
    await other.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: `to ${EMAIL}` }] });
    expect(lastUpstreamText()).toContain(EMAIL);
  });
});

describe("verdicts are recorded, never the matched text", () => {
  test("the log row names guardrail, check, action and match count; the logs filter by them; /metrics counts them", async () => {
    const { client } = await keyWithGuardrail(gw, "recorded", { checks: [{ type: "email", action: "redact" }, { type: "ip_address", action: "log" }] });
    await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: `${EMAIL} from 10.0.0.7 and 10.0.0.8, cc ${EMAIL}` }] });
    const row = await loggedRequest(gw, "recorded");
    expect(row.guardrails).toEqual([
      { guardrail: "recorded", check: "email", stage: "input", action: "redact", matches: 2 },
      { guardrail: "recorded", check: "ip_address", stage: "input", action: "log", matches: 2 },
      // The mock echoes the prompt: the reply is checked too (the emails in it are placeholders by then).
      { guardrail: "recorded", check: "ip_address", stage: "output", action: "log", matches: 2 },
    ]);
    expect(JSON.stringify(row)).not.toContain(EMAIL);
    const filtered = (await (await gw.admin("/api/logs?guardrails=recorded&guardrail_actions=log")).json()) as { logs: Array<{ id: string }> };
    expect(filtered.logs.map((log) => log.id)).toEqual([row.id as string]);
    const none = (await (await gw.admin("/api/logs?guardrails=recorded&guardrail_actions=block")).json()) as { logs: unknown[] };
    expect(none.logs).toEqual([]);
    const metrics = await (await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    expect(metrics).toContain('gateway_guardrail_matches_total{guardrail="recorded",check="email",stage="input",action="redact"} 2');
  });
});

describe("replies without text", () => {
  test("an empty reply (a realtime call accepted) passes an output check untouched, not as a plugin failure", async () => {
    const { client } = await keyWithGuardrail(gw, "empty-replies", { checks: [{ type: "email", action: "block", stage: "output" }] });
    await client.realtime.calls.accept("rtc_guarded_1", { type: "realtime", model: "gpt-realtime" });
    expect(upstream.requests.at(-1)).toMatchObject({ path: "/v1/realtime/calls/rtc_guarded_1/accept", body: { model: "gpt-realtime" } });
  });
});
