import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import OpenAI from "openai";
import packageJson from "../../package.json";
import type { GatewayConfig } from "../../src/config/schema";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

let upstream: MockOpenAI;
beforeAll(() => {
  upstream = startMockOpenAI();
});
afterAll(() => upstream.stop());

/** Each test owns one gateway (and its database), closed after it. */
let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

const seededConfig = (): GatewayConfig => ({
  providers: { openai: { keys: [{ id: "seeded", value: "sk-seeded-0000000001" }], network_config: { base_url: upstream.baseUrl, max_retries: 1 } } },
});

async function restart(current: TestGateway): Promise<TestGateway> {
  await current.stop();
  return current.restart();
}

const lastAuthorization = () => upstream.requests.at(-1)!.headers.get("authorization");
const chat = (url: string, model: string) => new OpenAI({ baseURL: `${url}/v1`, apiKey: "unused", maxRetries: 0 }).chat.completions.create({ model, messages: [{ role: "user", content: "hi" }] });

describe("config.json seeds the database on first start only", () => {
  test("its providers are there after the first start, usable at once", async () => {
    gw = await startGateway(seededConfig());
    const provider = await (await gw.admin("/api/providers/openai")).json();
    expect(provider).toMatchObject({ network_config: { base_url: upstream.baseUrl, max_retries: 1 }, keys: [{ id: "seeded" }] });
    await chat(gw.url, "openai/gpt-4o-mini");
    expect(lastAuthorization()).toBe("Bearer sk-seeded-0000000001");
  });

  test("after a restart with the same config.json, API changes stand: a deleted provider stays deleted, an edited one stays edited", async () => {
    const config: GatewayConfig = { providers: { ...seededConfig().providers, mistral: { keys: [{ id: "m", value: "sk-m" }], network_config: { base_url: upstream.baseUrl } } } };
    gw = await startGateway(config);
    expect((await gw.admin("/api/providers/openai", { method: "DELETE" })).status).toBe(200);
    expect((await gw.admin("/api/providers/mistral", { method: "PUT", json: { network_config: { base_url: upstream.baseUrl, max_retries: 4 } } })).status).toBe(200);
    gw = await restart(gw);
    expect((await gw.admin("/api/providers/openai")).status).toBe(404);
    expect(await (await gw.admin("/api/providers/mistral")).json()).toMatchObject({ network_config: { max_retries: 4 } });
  });

  test("fields the schema does not know are not stored from config.json", async () => {
    const config = seededConfig();
    Object.assign(config.providers!.openai!.keys![0]!, { config_hash: "forged", typo_field: true });
    gw = await startGateway(config);
    const key = await (await gw.admin("/api/providers/openai/keys/seeded")).json();
    expect(key).not.toHaveProperty("typo_field");
    expect(key).toMatchObject({ config_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });
});

describe("everything written through the API survives a restart", () => {
  test("providers, keys (secrets included), network and custom settings, deletions", async () => {
    gw = await startGateway(seededConfig());
    const writes: Array<[string, string, unknown]> = [
      ["POST", "/api/providers", { provider: "team-llm", custom_provider_config: { base_provider_type: "openai" }, network_config: { base_url: upstream.baseUrl, extra_headers: { "x-team": "a" } } }],
      ["POST", "/api/providers/team-llm/keys", { id: "team-key", value: "sk-team-secret-000000001", weight: 3, models: ["regex:house-.*"], aliases: { house: "house-v2" } }],
      ["POST", "/api/providers/openai/keys", { id: "gone", value: "sk-gone" }],
      ["DELETE", "/api/providers/openai/keys/gone", undefined],
      ["PUT", "/api/providers/openai/keys/seeded", { value: "sk-rotated-000000000001", enabled: true, blacklisted_models: ["o1"] }],
    ];
    for (const [method, path, json] of writes) expect((await gw.admin(path, { method, json })).status).toBeLessThan(300);
    const before = await (await gw.admin("/api/providers")).json();

    gw = await restart(gw);
    expect(await (await gw.admin("/api/providers")).json()).toEqual(before);
    await chat(gw.url, "team-llm/house");
    expect(upstream.requests.at(-1)!.body.model).toBe("house-v2");
    expect(upstream.requests.at(-1)!.headers.get("x-team")).toBe("a");
    expect(lastAuthorization()).toBe("Bearer sk-team-secret-000000001");
    await chat(gw.url, "openai/gpt-4o-mini");
    expect(lastAuthorization()).toBe("Bearer sk-rotated-000000000001");
  });

  test("secrets are encrypted at rest: the database files never hold a key's value", async () => {
    gw = await startGateway(seededConfig());
    await gw.admin("/api/providers/openai/keys", { method: "POST", json: { id: "at-rest-probe", value: "sk-must-not-be-plaintext-42", azure_key_config: { client_secret: "azure-must-not-be-plaintext" } } });
    const files = gw.databaseFiles().map((file) => readFileSync(file).toString("latin1"));
    // The files read are the ones the key went to: its id is stored as it is.
    expect(files.some((contents) => contents.includes("at-rest-probe"))).toBe(true);
    for (const contents of files) {
      expect(contents).not.toContain("sk-must-not-be-plaintext-42");
      expect(contents).not.toContain("azure-must-not-be-plaintext");
      expect(contents).not.toContain("sk-seeded-0000000001");
    }
  });
});

describe("env.NAME key values are read from the environment at call time", () => {
  const VARIABLE = "GATEWAY_SECRET_TEST_UPSTREAM_KEY";
  afterEach(() => {
    delete process.env[VARIABLE];
  });

  test("each call uses the variable's current value; responses show the reference, never the value", async () => {
    gw = await startGateway({ providers: { openai: { keys: [{ id: "from-env", value: `env.${VARIABLE}` }], network_config: { base_url: upstream.baseUrl } } } });
    process.env[VARIABLE] = "sk-env-first-value";
    await chat(gw.url, "openai/gpt-4o-mini");
    expect(lastAuthorization()).toBe("Bearer sk-env-first-value");
    process.env[VARIABLE] = "sk-env-second-value";
    await chat(gw.url, "openai/gpt-4o-mini");
    expect(lastAuthorization()).toBe("Bearer sk-env-second-value");
    const shown = await (await gw.admin("/api/providers/openai")).text();
    expect(shown).toContain(`env.${VARIABLE}`);
    expect(shown).not.toContain("sk-env-second-value");
  });

  test("a reference written through the API survives a restart as a reference", async () => {
    gw = await startGateway(seededConfig());
    await gw.admin("/api/providers/openai/keys/seeded", { method: "PUT", json: { value: `env.${VARIABLE}` } });
    gw = await restart(gw);
    process.env[VARIABLE] = "sk-env-after-restart";
    await chat(gw.url, "openai/gpt-4o-mini");
    expect(lastAuthorization()).toBe("Bearer sk-env-after-restart");
  });
});

describe("GET /health and GET /api/version", () => {
  test("health answers 200 {status: ok} with the database reachable, without credentials", async () => {
    gw = await startGateway();
    const response = await fetch(`${gw.url}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: "ok", database: "ok" });
  });

  test("version answers the package version, without credentials", async () => {
    gw = await startGateway();
    const response = await fetch(`${gw.url}/api/version`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ version: packageJson.version });
  });
});
