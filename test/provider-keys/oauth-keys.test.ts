import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import OpenAI from "openai";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOAuth, startMockOAuth } from "../support/mock-oauth";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

let oauth: MockOAuth;
let upstream: MockOpenAI;
let gw: TestGateway;
let client: OpenAI;

const CLIENT_SECRET = "oauth-client-secret-0001";
const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
const pem = (key: typeof rsa.privateKey) => key.export({ type: "pkcs8", format: "pem" }).toString();

beforeAll(async () => {
  oauth = startMockOAuth();
  oauth.clients.set("gateway-client", CLIENT_SECRET);
  oauth.signers.set("gateway-rsa", rsa.publicKey);
  oauth.signers.set("gateway-ec", ec.publicKey);
  upstream = startMockOpenAI();
  gw = await startGateway();
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
});
afterEach(() => {
  oauth.tokenLifetimeSeconds = 3600;
  oauth.answerDelayMs = 0;
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
  oauth.stop();
});

/** Registers `provider` (an OpenAI-compatible one) with a single key; every test gets its own provider, so its own token cache. */
async function providerWithKey(provider: string, key: Record<string, unknown>) {
  const response = await gw.admin("/api/providers", { method: "POST", json: { provider, network_config: { base_url: upstream.baseUrl }, keys: [{ id: `${provider}-key`, ...key }] } });
  expect(response.status).toBe(201);
}

const chat = (model: string, content = "hello") => client.chat.completions.create({ model, messages: [{ role: "user", content }] });
const bearerSent = () => upstream.requests.at(-1)!.headers.get("authorization");
const clientCredentials = (extra: Record<string, unknown> = {}) => ({ token_url: oauth.tokenUrl, client_id: "gateway-client", client_secret: CLIENT_SECRET, ...extra });

describe("oauth_key_config: a key without a value gets a minted bearer", () => {
  test("client credentials with auth_style header: HTTP Basic, scopes and extra_params in the form, the token as bearer upstream", async () => {
    const before = oauth.requests.length;
    await providerWithKey("groq", { value: "", oauth_key_config: clientCredentials({ grant_type: "client_credentials", auth_style: "header", scopes: ["models.read", "chat"], extra_params: { resource: "https://llm.internal" } }) });
    const reply = await chat("groq/llama-3.1-8b");
    expect(reply.choices[0]!.message.content).toBe("echo: hello");
    const sent = oauth.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ grantType: "client_credentials", clientAuth: "header", clientId: "gateway-client" });
    expect(sent[0]!.form.get("scope")).toBe("models.read chat");
    expect(sent[0]!.form.get("resource")).toBe("https://llm.internal");
    expect(sent[0]!.form.has("client_secret")).toBe(false);
    expect(bearerSent()).toBe(`Bearer ${oauth.issued.at(-1)}`);
  });

  test("auth_style body: the client id and secret travel as form fields, no Authorization header", async () => {
    const before = oauth.requests.length;
    await providerWithKey("mistral", { oauth_key_config: clientCredentials({ auth_style: "body" }) });
    await chat("mistral/mistral-small");
    const sent = oauth.requests[before]!;
    expect(sent).toMatchObject({ clientAuth: "body", clientId: "gateway-client" });
    expect(sent.form.get("client_secret")).toBe(CLIENT_SECRET);
    expect(bearerSent()).toBe(`Bearer ${oauth.issued.at(-1)}`);
  });

  test("JWT bearer, RS256: the endpoint verifies the assertion's signature and its claims", async () => {
    const before = oauth.requests.length;
    await providerWithKey("xai", {
      oauth_key_config: {
        grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
        token_url: oauth.tokenUrl,
        private_key: pem(rsa.privateKey),
        signing_algorithm: "RS256",
        issuer: "gateway-rsa",
        subject: "service-account-7",
        key_id: "rsa-key-1",
        assertion_lifetime_seconds: 120,
        scopes: ["inference"],
      },
    });
    await chat("xai/grok-3");
    const { assertion, grantType, form } = oauth.requests[before]!;
    expect(grantType).toBe("urn:ietf:params:oauth:grant-type:jwt-bearer");
    expect(assertion!.header).toMatchObject({ alg: "RS256", kid: "rsa-key-1", typ: "JWT" });
    expect(assertion!.claims).toMatchObject({ iss: "gateway-rsa", sub: "service-account-7", aud: oauth.tokenUrl, scope: "inference" });
    expect(assertion!.claims.exp! - assertion!.claims.iat!).toBe(120);
    expect(form.get("scope")).toBe("inference");
    expect(bearerSent()).toBe(`Bearer ${oauth.issued.at(-1)}`);
  });

  test("JWT bearer, ES256 with a SEC1 key: issuer defaults to the client id, audience to the token endpoint", async () => {
    const before = oauth.requests.length;
    await providerWithKey("cerebras", {
      oauth_key_config: {
        token_url: oauth.tokenUrl,
        client_id: "gateway-ec",
        private_key: ec.privateKey.export({ type: "sec1", format: "pem" }).toString(),
        signing_algorithm: "ES256",
      },
    });
    await chat("cerebras/llama3.1-8b");
    const { assertion } = oauth.requests[before]!;
    expect(assertion!.header.alg).toBe("ES256");
    expect(assertion!.claims).toMatchObject({ iss: "gateway-ec", sub: "gateway-ec", aud: oauth.tokenUrl });
    expect(typeof assertion!.claims.jti).toBe("string");
  });

  test("a non-empty value always wins: the value is the bearer and no token is requested", async () => {
    const before = oauth.requests.length;
    await providerWithKey("openrouter", { value: "sk-static-value-0001", oauth_key_config: clientCredentials() });
    await chat("openrouter/some-model");
    expect(oauth.requests.length).toBe(before);
    expect(bearerSent()).toBe("Bearer sk-static-value-0001");
  });
});

describe("minted tokens are cached until shortly before expiry and refreshed once", () => {
  test("one token serves the key's health check and every request while it is fresh", async () => {
    const before = oauth.requests.length;
    await providerWithKey("perplexity", { oauth_key_config: clientCredentials() });
    await chat("perplexity/sonar");
    await chat("perplexity/sonar");
    expect(oauth.requests.length - before).toBe(1);
    expect(bearerSent()).toBe(`Bearer ${oauth.issued.at(-1)}`);
  });

  test("50 concurrent requests on an expired token make exactly one token request, and all carry its token; the next burst one more", async () => {
    oauth.tokenLifetimeSeconds = 0;
    oauth.answerDelayMs = 150;
    await providerWithKey("ollama", { oauth_key_config: clientCredentials({ scopes: ["expiring"] }) });
    for (const burst of [1, 2]) {
      const tokensBefore = oauth.requests.length;
      const upstreamBefore = upstream.requests.length;
      await Promise.all(Array.from({ length: 50 }, (_, index) => chat("ollama/llama3", `burst ${burst} request ${index}`)));
      expect(oauth.requests.length - tokensBefore).toBe(1);
      const sent = upstream.requests.slice(upstreamBefore);
      expect(sent).toHaveLength(50);
      expect([...new Set(sent.map((request) => request.headers.get("authorization")))]).toEqual([`Bearer ${oauth.issued.at(-1)}`]);
    }
  });

  test("a refused token request fails the call as provider_auth_failed without leaking the secret", async () => {
    await providerWithKey("vllm", { oauth_key_config: clientCredentials({ client_secret: "wrong-secret-value-0002" }) });
    const response = await fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "vllm/qwen", messages: [{ role: "user", content: "hi" }] }) });
    const body = await expectGatewayError(response, 401, { errorType: "provider_auth_failed" });
    expect(body.error.message).toContain("invalid_client");
    expect(JSON.stringify(body)).not.toContain("wrong-secret-value-0002");
  });
});

describe("oauth_key_config is validated and its secrets redacted", () => {
  const post = (key: Record<string, unknown>) => gw.admin("/api/providers/openai/keys", { method: "POST", json: key });

  beforeAll(async () => {
    await gw.admin("/api/providers", { method: "POST", json: { provider: "openai", network_config: { base_url: upstream.baseUrl } } });
  });

  test.each([
    ["grant_type", { grant_type: "password" }],
    ["signing_algorithm", { signing_algorithm: "HS256" }],
    ["auth_style", { auth_style: "query" }],
    ["token_url", { token_url: "not a url" }],
  ])("an unsupported %s is a 400 naming the field", async (field, config) => {
    const body = await expectGatewayError(await post({ value: "sk-x", oauth_key_config: { ...clientCredentials(), ...config } }), 400, { param: `oauth_key_config.${field}` });
    expect(body.error.message).toContain(field);
  });

  test("a key that mints needs what its grant needs", async () => {
    await expectGatewayError(await post({ oauth_key_config: { client_id: "gateway-client", client_secret: CLIENT_SECRET } }), 400, { param: "oauth_key_config.token_url" });
    await expectGatewayError(await post({ oauth_key_config: { token_url: oauth.tokenUrl, client_id: "gateway-client" } }), 400, { param: "oauth_key_config.client_secret" });
    await expectGatewayError(await post({ oauth_key_config: { token_url: oauth.tokenUrl, grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", issuer: "x" } }), 400, { param: "oauth_key_config.private_key" });
  });

  test("a private key that is no PEM, or does not suit the algorithm, is a 400 naming private_key", async () => {
    const jwt = { token_url: oauth.tokenUrl, issuer: "gateway-rsa" };
    await expectGatewayError(await post({ oauth_key_config: { ...jwt, private_key: "-----BEGIN PRIVATE KEY-----nope-----END PRIVATE KEY-----" } }), 400, { param: "oauth_key_config.private_key" });
    await expectGatewayError(await post({ oauth_key_config: { ...jwt, private_key: pem(rsa.privateKey), signing_algorithm: "ES256" } }), 400, { param: "oauth_key_config.private_key" });
  });

  test("client_secret and private_key are redacted in responses", async () => {
    const response = await post({ id: "redacted-oauth", oauth_key_config: { ...clientCredentials(), private_key: pem(rsa.privateKey), issuer: "gateway-rsa" } });
    expect(response.status).toBe(201);
    const text = await (await gw.admin("/api/providers/openai/keys/redacted-oauth")).text();
    expect(text).not.toContain(CLIENT_SECRET);
    expect(text).not.toContain("PRIVATE KEY-----\n");
    expect(JSON.parse(text).oauth_key_config).toMatchObject({ client_id: "gateway-client", token_url: oauth.tokenUrl });
  });
});
