import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

/** Every secret a key can hold (spec 2.7), each distinct so a leak names its source. */
const SECRETS = {
  value: "sk-live-value-secret-AAAA1111",
  azureClientSecret: "azure-client-secret-BBBB2222",
  vertexCredentials: '{"type":"service_account","private_key":"vertex-private-CCCC3333"}',
  bedrockAccessKey: "AKIABEDROCKACCESSDDDD4444",
  bedrockSecretKey: "bedrock-secret-key-EEEE5555",
  bedrockSessionToken: "bedrock-session-token-FFFF6666",
  oauthClientSecret: "oauth-client-secret-GGGG7777",
  oauthPrivateKey: "-----BEGIN PRIVATE KEY-----oauth-HHHH8888-----END PRIVATE KEY-----",
} as const;

/** A key with every field of spec 2.7 that a client may write. */
const FULL_KEY = {
  id: "full",
  name: "every field",
  value: SECRETS.value,
  models: ["gpt-4o-mini", "regex:gpt-4\\.1.*"],
  blacklisted_models: ["gpt-4o-mini-2024-07-18"],
  weight: 2.5,
  aliases: { fast: "gpt-4o-mini" },
  azure_key_config: {
    endpoint: "https://example.openai.azure.com",
    api_version: "2024-10-21",
    client_id: "azure-client-id",
    client_secret: SECRETS.azureClientSecret,
    tenant_id: "azure-tenant",
    scopes: ["https://cognitiveservices.azure.com/.default"],
  },
  vertex_key_config: {
    project_id: "proj",
    project_number: "1234",
    region: "us-central1",
    auth_credentials: SECRETS.vertexCredentials,
    force_single_region: true,
    aws_workload_identity: { audience: "aud", service_account_email: "sa@proj.iam.gserviceaccount.com", aws_region: "us-east-1", aws_role_arn: "arn:aws:iam::1:role/r", token_lifetime_seconds: 3600 },
  },
  bedrock_key_config: {
    access_key: SECRETS.bedrockAccessKey,
    secret_key: SECRETS.bedrockSecretKey,
    session_token: SECRETS.bedrockSessionToken,
    region: "us-east-1",
    arn: "arn:aws:bedrock:us-east-1:1:inference-profile/x",
    batch_s3_config: { buckets: [{ bucket_name: "batches", prefix: "in/", is_default: true }] },
  },
  vllm_key_config: { url: "http://vllm.internal:8000", model_name: "llama-3" },
  ollama_key_config: { url: "http://ollama.internal:11434" },
  sgl_key_config: { url: "http://sgl.internal:30000" },
  cloudflare_key_config: { account_id: "cf-account" },
  replicate_key_config: { use_deployments_endpoint: true },
  oauth_key_config: {
    grant_type: "client_credentials",
    token_url: "https://idp.example.com/token",
    client_id: "oauth-client",
    client_secret: SECRETS.oauthClientSecret,
    private_key: SECRETS.oauthPrivateKey,
    audience: "api",
    issuer: "iss",
    subject: "sub",
    key_id: "kid-1",
    signing_algorithm: "RS256",
    auth_style: "header",
    scopes: ["read"],
    extra_params: { resource: "r" },
    assertion_lifetime_seconds: 300,
  },
  enabled: true,
  use_for_batch_api: true,
};

const REDACTED = expect.not.stringMatching(/^$/);
const SECRET_FIELDS_REDACTED = {
  value: REDACTED,
  azure_key_config: { client_secret: REDACTED },
  vertex_key_config: { auth_credentials: REDACTED },
  bedrock_key_config: { access_key: REDACTED, secret_key: REDACTED, session_token: REDACTED },
  oauth_key_config: { client_secret: REDACTED, private_key: REDACTED },
};

/** The key as written, minus every secret field (which responses must not echo). */
function withoutSecrets(key: typeof FULL_KEY) {
  const copy = structuredClone(key) as Record<string, unknown> & typeof key;
  delete (copy as Partial<typeof key>).value;
  for (const [section, fields] of Object.entries(SECRET_FIELDS_REDACTED)) {
    if (typeof fields !== "object") continue;
    for (const field of Object.keys(fields)) delete (copy[section] as Record<string, unknown>)[field];
  }
  return copy;
}

let upstream: MockOpenAI;
let gw: TestGateway;
/** Every body any management response carried in this file. */
const seenBodies: string[] = [];

async function admin(path: string, init?: RequestInit & { json?: unknown }) {
  const response = await gw.admin(path, init);
  const text = await response.text();
  seenBodies.push(text);
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const client = () => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
const chat = (model: string) => client().chat.completions.create({ model, messages: [{ role: "user", content: "hi" }] });

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway();
  const created = await admin("/api/providers", { method: "POST", json: { provider: "openai", network_config: { base_url: upstream.baseUrl }, keys: [FULL_KEY] } });
  expect(created.status).toBe(201);
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

describe("every field of spec 2.7 is stored and returned", () => {
  test("GET of the key returns each written field, secrets redacted, plus config_hash, status and description", async () => {
    const { status, body } = await admin("/api/providers/openai/keys/full");
    expect(status).toBe(200);
    expect(structuredClone(body)).toMatchObject(withoutSecrets(FULL_KEY));
    expect(body).toMatchObject(SECRET_FIELDS_REDACTED);
    expect(body).toMatchObject({ config_hash: expect.stringMatching(/^[0-9a-f]{64}$/), status: expect.any(String), description: expect.any(String) });
  });
});

describe("secrets are redacted in every response", () => {
  test("no secret appears in provider lists, provider reads, key lists, key reads or write responses", async () => {
    await admin("/api/providers");
    await admin("/api/providers/openai");
    await admin("/api/providers/openai/keys");
    await admin("/api/providers/openai/keys/full");
    const secondKey = { ...FULL_KEY, id: "full-2", enabled: false };
    expect((await admin("/api/providers/openai/keys", { method: "POST", json: secondKey })).status).toBe(201);
    expect((await admin("/api/providers/openai/keys/full-2", { method: "PUT", json: secondKey })).status).toBe(200);
    const current = (await admin("/api/providers/openai")).body;
    expect((await admin("/api/providers/openai", { method: "PUT", json: { keys: current.keys, network_config: current.network_config } })).status).toBe(200);
    expect(seenBodies.length).toBeGreaterThanOrEqual(8);
    for (const body of seenBodies) {
      // A secret with quotes (Vertex's JSON credentials) appears escaped inside a JSON body.
      for (const [name, secret] of Object.entries(SECRETS)) expect({ name, leaked: body.includes(secret) || body.includes(JSON.stringify(secret).slice(1, -1)) }).toEqual({ name, leaked: false });
    }
  });
});

describe("what a redacted secret shows", () => {
  const shown = async (id: string, value: string) => {
    expect((await admin("/api/providers/openai/keys", { method: "POST", json: { id, value } })).status).toBe(201);
    const { body } = await admin(`/api/providers/openai/keys/${id}`);
    await admin(`/api/providers/openai/keys/${id}`, { method: "DELETE" });
    return body.value as string;
  };

  test("the last four characters of a secret of 16 or more, nothing of a shorter one, an env reference or no value as written", async () => {
    expect(await shown("sixteen", "sk-sixteen-12345")).toBe("****2345");
    expect(await shown("fifteen", "sk-fifteen-1234")).toBe("****");
    expect(await shown("long", SECRETS.value)).toBe("****1111");
    expect(await shown("from-env", "env.OPENAI_API_KEY")).toBe("env.OPENAI_API_KEY");
    // An empty value (a keyless local model server) shows as empty, not as a set secret.
    expect(await shown("empty", "")).toBe("");
  });

  test("each per-cloud secret is redacted the same way", async () => {
    const { body } = await admin("/api/providers/openai/keys/full");
    expect(body).toMatchObject({
      azure_key_config: { client_secret: "****2222" },
      vertex_key_config: { auth_credentials: '****33"}' },
      bedrock_key_config: { access_key: "****4444", secret_key: "****5555", session_token: "****6666" },
      oauth_key_config: { client_secret: "****7777" },
    });
    expect(body.oauth_key_config.private_key).toBe("****----");
  });

  test("a section without some of its secrets is read and written; a secret added later is stored", async () => {
    const partial = { id: "partial", value: "sk-partial-value-0001", bedrock_key_config: { access_key: "AKIAPARTIALACCESS0002", region: "us-east-1" } };
    expect((await admin("/api/providers/openai/keys", { method: "POST", json: partial })).status).toBe(201);
    const read = await admin("/api/providers/openai/keys/partial");
    expect(read.status).toBe(200);
    expect(read.body.bedrock_key_config).toEqual({ access_key: "****0002", region: "us-east-1" });
    const added = await admin("/api/providers/openai/keys/partial", {
      method: "PUT",
      json: { ...read.body, bedrock_key_config: { ...read.body.bedrock_key_config, secret_key: "bedrock-added-secret-0003" } },
    });
    expect(added.status).toBe(200);
    expect((await admin("/api/providers/openai/keys/partial")).body.bedrock_key_config).toEqual({ access_key: "****0002", secret_key: "****0003", region: "us-east-1" });
    await admin("/api/providers/openai/keys/partial", { method: "DELETE" });
  });
});

describe("writing a redacted value back keeps the secret", () => {
  test("PUT of the key exactly as GET showed it: same config_hash, and the upstream still gets the real key", async () => {
    const before = (await admin("/api/providers/openai/keys/full")).body;
    const written = await admin("/api/providers/openai/keys/full", { method: "PUT", json: before });
    expect(written.status).toBe(200);
    expect(written.body.config_hash).toBe(before.config_hash);
    await chat("openai/fast");
    expect(upstream.requests.at(-1)!.headers.get("authorization")).toBe(`Bearer ${SECRETS.value}`);
  });

  test("PUT of the whole provider as GET showed it keeps every key's secrets", async () => {
    const before = (await admin("/api/providers/openai")).body;
    const written = await admin("/api/providers/openai", { method: "PUT", json: { keys: before.keys, network_config: before.network_config } });
    expect(written.status).toBe(200);
    expect(written.body.keys.map((key: { config_hash: string }) => key.config_hash)).toEqual(before.keys.map((key: { config_hash: string }) => key.config_hash));
    await chat("openai/fast");
    expect(upstream.requests.at(-1)!.headers.get("authorization")).toBe(`Bearer ${SECRETS.value}`);
  });

  test("a new value replaces the secret", async () => {
    const before = (await admin("/api/providers/openai/keys/full")).body;
    await admin("/api/providers/openai/keys/full", { method: "PUT", json: { ...before, value: "sk-rotated-value-0000" } });
    await chat("openai/fast");
    expect(upstream.requests.at(-1)!.headers.get("authorization")).toBe("Bearer sk-rotated-value-0000");
  });
});

describe("config_hash changes when the key's configuration changes, and not otherwise", () => {
  const hashOf = async () => (await admin("/api/providers/openai/keys/full")).body.config_hash as string;
  const put = async (changes: Record<string, unknown>) => {
    const current = (await admin("/api/providers/openai/keys/full")).body;
    expect((await admin("/api/providers/openai/keys/full", { method: "PUT", json: { ...current, ...changes } })).status).toBe(200);
  };

  test("unrelated writes (another key, the provider's network_config) leave it alone", async () => {
    const hash = await hashOf();
    await admin("/api/providers/openai/keys", { method: "POST", json: { id: "other", value: "x" } });
    await admin("/api/providers/openai/keys/other", { method: "DELETE" });
    const provider = (await admin("/api/providers/openai")).body;
    await admin("/api/providers/openai", { method: "PUT", json: { network_config: { ...provider.network_config, max_retries: 3 } } });
    expect(await hashOf()).toBe(hash);
  });

  for (const [field, change] of [
    ["weight", { weight: 7 }],
    ["models", { models: ["gpt-4o"] }],
    ["aliases", { aliases: { fast: "gpt-4o" } }],
    ["enabled", { enabled: false }],
    ["value", { value: "sk-another-value-1234" }],
    ["a redacted per-cloud secret", { bedrock_key_config: { ...FULL_KEY.bedrock_key_config, secret_key: "new-bedrock-secret-9999" } }],
  ] as const) {
    test(`a change of ${field} changes it`, async () => {
      const hash = await hashOf();
      await put(change);
      expect(await hashOf()).not.toBe(hash);
    });
  }
});

describe("config_hash keeps the key's secrets", () => {
  test("it is no plain SHA-256 of the configuration, which would let anyone who reads it confirm a guessed value", async () => {
    const created = await admin("/api/providers/openai/keys", { method: "POST", json: { id: "guessable", value: "abc" } });
    expect(created.status).toBe(201);
    const stored = (await admin("/api/providers/openai/keys/guessable")).body;
    // The configuration as stored, with the guessed value in place of the redacted one, keys sorted.
    const guess = { enabled: stored.enabled, id: "guessable", name: stored.name, value: "abc", weight: stored.weight };
    const plainHash = new Bun.CryptoHasher("sha256").update(JSON.stringify(guess)).digest("hex");
    expect(stored.config_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.config_hash).not.toBe(plainHash);
    await admin("/api/providers/openai/keys/guessable", { method: "DELETE" });
  });
});

describe("key ids", () => {
  test("a key id another provider already uses is a 409, not a server error", async () => {
    await admin("/api/providers", { method: "POST", json: { provider: "mistral", network_config: { base_url: upstream.baseUrl } } });
    await expectGatewayError(await gw.admin("/api/providers/mistral/keys", { method: "POST", json: { id: "full", value: "v" } }), 409, { param: "id" });
    await expectGatewayError(await gw.admin("/api/providers", { method: "POST", json: { provider: "xai", keys: [{ id: "full", value: "v" }] } }), 409, { param: "keys[0].id" });
    await expectGatewayError(await gw.admin("/api/providers/mistral", { method: "PUT", json: { keys: [{ id: "full", value: "v" }] } }), 409, { param: "keys[0].id" });
    await expectGatewayError(await gw.admin("/api/providers/xai"), 404);
  });
});
