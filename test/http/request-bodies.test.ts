import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

let upstream: MockOpenAI;
let open: TestGateway;
let enforced: TestGateway;

const providers = () => ({ openai: { keys: [{ id: "k1", value: "sk-upstream", models: ["*"] }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } } });

beforeAll(async () => {
  upstream = startMockOpenAI();
  open = await startGateway({ server: { max_request_body_mb: 1 }, providers: providers() });
  enforced = await startGateway({ enforce_auth_on_inference: true, providers: providers() });
});
afterAll(async () => {
  await Promise.all([open.close(), enforced.close()]);
  upstream.stop();
});

/** A chat body whose deepest value is `depth` objects and arrays down from the root object. */
const chatNested = (depth: number, content = "nested") =>
  `{"model":"openai/gpt-4o-mini","messages":[{"role":"user","content":${JSON.stringify(content)}}],"kept_as_sent":${"[".repeat(depth - 1)}${"]".repeat(depth - 1)}}`;

const post = (gw: TestGateway, path: string, body: string | Uint8Array, headers: Record<string, string> = {}) =>
  fetch(`${gw.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });

const replyText = async (response: Response) => ((await response.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content;

describe("a JSON body nested past server.max_json_depth (default 128) is a 400 before it is parsed", () => {
  test("128 levels are served; 129 are refused with the error body naming the body and the setting", async () => {
    const served = await post(open, "/v1/chat/completions", chatNested(128, "at the limit"));
    expect(served.status).toBe(200);
    expect(await replyText(served)).toContain("at the limit");
    const refused = await expectGatewayError(await post(open, "/v1/chat/completions", chatNested(129)), 400, { param: "body", errorType: "caller_json_too_deep" });
    expect(refused.error.message).toContain("server.max_json_depth");
    expect(upstream.requests.filter((request) => JSON.stringify(request.body).includes("kept_as_sent")).length).toBe(1);
  });

  test("brackets inside strings are text, not nesting, escaped quotes and backslashes included", async () => {
    const content = `a quote \\" then ${"[{".repeat(300)} and a backslash \\`;
    const response = await post(open, "/v1/chat/completions", JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }] }));
    expect(response.status).toBe(200);
    expect(await replyText(response)).toContain("[{[{");
  });

  test("a 195 KB body nested 100,000 levels, eight at once, is refused at once and the gateway keeps answering", async () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const started = performance.now();
    const answers = await Promise.all(Array.from({ length: 8 }, () => post(open, "/v1/chat/completions", deep)));
    const elapsed = performance.now() - started;
    for (const answer of answers) await expectGatewayError(answer, 400, { errorType: "caller_json_too_deep" });
    expect((await fetch(`${open.url}/health`)).status).toBe(200);
    // Parsed and checked, each held the event loop for seconds; refused unparsed, all eight take milliseconds.
    expect(elapsed).toBeLessThan(1_000);
  });

  test("the management API refuses one the same way", async () => {
    const response = await open.admin("/api/governance/virtual-keys", { method: "POST", headers: { "content-type": "application/json" }, body: `{"name":"deep","metadata":${"[".repeat(500)}${"]".repeat(500)}}` });
    await expectGatewayError(response, 400, { param: "body", errorType: "caller_json_too_deep" });
  });

  test("100,000 levels on an authenticated management write are a 400 naming the body, on every kind of write, before anything walks them", async () => {
    const deep = `{"name":"deep","metadata":${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
    const writes: Array<[string, string]> = [
      ["POST", "/api/governance/virtual-keys"],
      ["PUT", "/api/governance/virtual-keys/no-such-key"],
      ["POST", "/api/providers"],
      ["PUT", "/api/config"],
      ["POST", "/api/mcp/client"],
      ["POST", "/api/webhooks/endpoints"],
      ["POST", "/api/session/login"],
    ];
    for (const [method, path] of writes) {
      const response = await open.admin(path, { method, headers: { "content-type": "application/json" }, body: deep });
      await expectGatewayError(response, 400, { param: "body", errorType: "caller_json_too_deep" });
    }
    expect((await open.admin("/api/governance/virtual-keys")).status).toBe(200);
  });

  test("a lower limit in the configuration applies", async () => {
    const strict = await startGateway({ server: { max_json_depth: 8 }, providers: providers() });
    try {
      expect((await post(strict, "/v1/chat/completions", chatNested(8))).status).toBe(200);
      await expectGatewayError(await post(strict, "/v1/chat/completions", chatNested(9)), 400, { errorType: "caller_json_too_deep" });
    } finally {
      await strict.close();
    }
  });
});

describe("with enforce_auth_on_inference on, the virtual key is checked before the body is read", () => {
  test("a keyless body nested 100,000 levels is a 401, not a parse", async () => {
    const response = await post(enforced, "/v1/chat/completions", `${"[".repeat(100_000)}${"]".repeat(100_000)}`);
    await expectGatewayError(response, 401, { errorType: "caller_virtual_key_required" });
  });

  test("a body that is not even JSON, with an unknown virtual key, is a 401 on every inference surface", async () => {
    for (const path of ["/v1/chat/completions", "/anthropic/v1/messages", "/langchain/v1/chat/completions", "/genai/v1beta/models/gpt-4o-mini:generateContent"]) {
      await expectGatewayError(await post(enforced, path, "{ not json", { authorization: "Bearer sk-gw-not-a-key" }), 401, { errorType: "caller_virtual_key_invalid" });
    }
  });
});

describe("a compressed request body is decoded within server.max_request_body_mb", () => {
  const body = JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "sent compressed" }] });
  for (const [encoding, compress] of [
    ["gzip", gzipSync],
    ["deflate", deflateSync],
    ["br", brotliCompressSync],
  ] as const) {
    test(`Content-Encoding: ${encoding}`, async () => {
      const response = await post(open, "/v1/chat/completions", compress(body), { "content-encoding": encoding });
      expect(response.status).toBe(200);
      expect(await replyText(response)).toContain("sent compressed");
    });
  }

  test("a body that decompresses past the limit is a 413, however small it is sent", async () => {
    const bomb = gzipSync(`{"model":"openai/gpt-4o-mini","padding":"${" ".repeat(2 * 2 ** 20)}"}`);
    expect(bomb.byteLength).toBeLessThan(10_000);
    await expectGatewayError(await post(open, "/v1/chat/completions", bomb, { "content-encoding": "gzip" }), 413, { param: "body", errorType: "caller_request_too_large" });
  });

  test("a body that is not what its encoding says is a 400; an encoding the gateway does not decode is a 415", async () => {
    await expectGatewayError(await post(open, "/v1/chat/completions", body, { "content-encoding": "gzip" }), 400, { param: "content-encoding" });
    await expectGatewayError(await post(open, "/v1/chat/completions", body, { "content-encoding": "compress" }), 415, { param: "content-encoding", errorType: "caller_unsupported_content_encoding" });
  });
});

describe("routes that read their body themselves are held to the same limit", () => {
  test("an async submission nested past the limit is refused before a job is stored", async () => {
    await expectGatewayError(await post(open, "/v1/async/chat/completions", chatNested(129)), 400, { param: "body", errorType: "caller_json_too_deep" });
    const stored = await post(open, "/v1/async/chat/completions", chatNested(128, "async at the limit"));
    expect(stored.status).toBe(202);
  });
});
