import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import OpenAI from "openai";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

// A key whose value is env.NAME, NAME unset, would send no auth header: the gateway says so when
// the key is registered, and a request on it fails as the gateway's, not the provider's, 401.

const UNSET = "PROVIDER_TEST_KEY_NEVER_SET";
let upstream: MockOpenAI;
let gw: TestGateway;

beforeAll(async () => {
  delete process.env[UNSET];
  upstream = startMockOpenAI();
  gw = await startGateway();
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

describe("a key whose env.* variable is not set", () => {
  test("registering it answers the key as key_unresolved, naming provider, key and variable, and warns", async () => {
    const warn = spyOn(console, "warn").mockImplementation(() => undefined);
    let response: Response;
    try {
      response = await gw.admin("/api/providers", { method: "POST", json: { provider: "openai", network_config: { base_url: upstream.baseUrl }, keys: [{ id: "from-env", value: `env.${UNSET}` }] } });
      expect(warn.mock.calls.map((call) => call.join(" ")).join("\n")).toContain(`key 'from-env' of provider 'openai' has value env.${UNSET}`);
    } finally {
      warn.mockRestore();
    }
    expect(response.status).toBe(201);
    const { keys } = (await response.json()) as { keys: Array<{ id: string; status: string; description: string }> };
    expect(keys[0]).toMatchObject({ id: "from-env", status: "key_unresolved" });
    expect(keys[0]!.description).toContain(`the environment variable ${UNSET} is not set`);
  });

  test("a request on it is a provider_key_unresolved error the SDK raises, and the upstream gets nothing", async () => {
    const before = upstream.requests.length;
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const error = await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ code: "provider_key_unresolved" });
    expect((error as Error).message).toContain(UNSET);
    expect(upstream.requests.length).toBe(before);
  });

  test("another key of the provider serves the request meanwhile", async () => {
    const added = await gw.admin("/api/providers/openai/keys", { method: "POST", json: { id: "literal", value: "sk-literal" } });
    expect(added.status).toBe(201);
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
    for (let round = 0; round < 6; round++) {
      const completion = await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: `round ${round}` }] });
      expect(completion.choices[0]!.message.content).toBe(`echo: round ${round}`);
      expect(upstream.requests.at(-1)!.headers.get("authorization")).toBe("Bearer sk-literal");
    }
  });
});
