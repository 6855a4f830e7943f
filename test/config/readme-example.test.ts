import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import OpenAI from "openai";
import type { GatewayConfig } from "../../src/config/schema";
import { startGateway, type TestGateway } from "../support/gateway";
import { loggedRequest } from "../support/logged-request";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

// The config.json example of the README, loaded as written: only the local server's address is
// the mock's. Its keyless custom provider is a local OpenAI-compatible server without auth, and
// its env.* keys name variables this test leaves unset.

const README_LOCAL_URL = "http://127.0.0.1:9000/v1";

/** The first JSON block after the README's "config.json seeds the database" paragraph. */
function readmeExample(): string {
  const readme = readFileSync(join(import.meta.dir, "../../README.md"), "utf8");
  const section = readme.slice(readme.indexOf("config.json seeds the database"));
  const block = /```json\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error("the README has no config.json example");
  return block[1]!;
}

let local: MockOpenAI;
let gw: TestGateway;
let warnings: string[];
const unset = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY"] as const;
const saved = Object.fromEntries(unset.map((name) => [name, process.env[name]]));

beforeAll(async () => {
  for (const name of unset) delete process.env[name];
  local = startMockOpenAI();
  const text = readmeExample();
  expect(text).toContain(README_LOCAL_URL);
  const config = JSON.parse(text.replace(README_LOCAL_URL, local.baseUrl)) as GatewayConfig;
  const warn = spyOn(console, "warn").mockImplementation(() => undefined);
  try {
    gw = await startGateway(config);
    warnings = warn.mock.calls.map((call) => call.map(String).join(" "));
  } finally {
    warn.mockRestore();
  }
});
afterAll(async () => {
  await gw.close();
  local.stop();
  for (const name of unset) if (saved[name] !== undefined) process.env[name] = saved[name];
});

describe("the README's config.json example", () => {
  test("its keyless local provider serves any model, with no auth header sent", async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: "local/llama-3.1-8b", messages: [{ role: "user", content: "hello local" }] });
    expect(completion.choices[0]!.message.content).toBe("echo: hello local");
    const sent = local.requests.at(-1)!;
    expect(sent.body.model).toBe("llama-3.1-8b");
    expect(sent.headers.get("authorization")).toBeNull();
    const streamed = await client.chat.completions.create({ model: "local/qwen2.5-coder", messages: [{ role: "user", content: "and streamed" }], stream: true });
    let text = "";
    for await (const chunk of streamed) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe("echo: and streamed");
  });

  test("the start warns of each env.* key whose variable is not set, naming provider, key and variable", () => {
    expect(warnings.find((warning) => warning.includes("provider 'openai'"))).toContain("OPENAI_API_KEY");
    expect(warnings.find((warning) => warning.includes("provider 'anthropic'"))).toContain("ANTHROPIC_API_KEY");
  });

  test("a request on such a key fails with provider_key_unresolved, never reaching the provider, and is logged so", async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const error = await client.chat.completions
      .create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }, { headers: { "x-gw-metadata-case": "unset-variable" } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as Error).message).toContain("OPENAI_API_KEY is not set");
    expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ code: "provider_key_unresolved" });
    expect(await loggedRequest(gw, "unset-variable")).toMatchObject({ status: "error", error_type: "provider_key_unresolved" });
  });
});
