import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Type as t } from "@sinclair/typebox";
import Ajv2020 from "ajv/dist/2020";
import { Elysia } from "elysia";
import { errorHandler } from "../../src/http/error-handler";
import { replies } from "../../src/http/replies";
import { startGateway, type TestGateway } from "../support/gateway";
import { expectGatewayError } from "../support/gateway-error";

interface Documented {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: object }> }; responses: Record<string, { content?: Record<string, { schema: object; example?: unknown }>; headers?: Record<string, object> }> }>>;
  components: { schemas: Record<string, object> };
}

/** The /v1 routes whose replies the gateway writes itself rather than a provider's (async jobs are added by prefix). */
const GATEWAY_BUILT = ["/v1/models", "/v1/models/{rest}", "/v1/mcp/tool/execute", "/health", "/health/live", "/health/ready", "/metrics"];

type Responses = Documented["paths"][string][string]["responses"];

/** A success is described by a 2xx body's schema, a WebSocket's 101, or a redirect's Location. */
function describesSuccess(responses: Responses): boolean {
  return Object.entries(responses).some(([status, response]) => {
    if (status.startsWith("2")) return Object.values(response.content ?? {}).some((media) => media.schema !== undefined);
    return status === "101" || (status.startsWith("3") && response.headers?.Location !== undefined);
  });
}

let gateway: TestGateway;
let document: Documented;
beforeAll(async () => {
  gateway = await startGateway();
  document = (await (await fetch(`${gateway.url}/api/openapi.json`)).json()) as Documented;
});
afterAll(() => gateway.close());

/** The documented schema of a reply, compiled apart from the gateway's own checks. */
function documentedSchema(method: string, path: string, status: number) {
  const schema = document.paths[path]?.[method]?.responses[status]?.content?.["application/json"]?.schema;
  expect(schema).toBeDefined();
  return new Ajv2020({ strict: false, validateFormats: false }).compile({ ...schema!, components: document.components });
}

describe("replies described in /api/openapi.json", () => {
  test("a create answers 201 with the body its document describes: a virtual key's value, shown once", async () => {
    const created = await gateway.admin("/api/governance/virtual-keys", { method: "POST", json: { name: "documented", budgets: [{ max_limit: 5, reset_duration: "1M" }] } });
    expect(created.status).toBe(201);
    const body = (await created.json()) as { virtual_key: Record<string, unknown> };
    const validate = documentedSchema("post", "/api/governance/virtual-keys", 201);
    expect(validate(body) ? [] : validate.errors).toEqual([]);
    expect(validate({ ...body, virtual_key: { ...body.virtual_key, value: 42 } })).toBe(false);
    expect(document.paths["/api/governance/virtual-keys"]!.post!.responses["200"]).toBeUndefined();
  });

  test("lists and reads of teams, providers, MCP clients, logs, budgets, settings and models match their documented schemas", async () => {
    await gateway.admin("/api/governance/teams", { method: "POST", json: { name: "documented-team" } });
    await gateway.admin("/api/providers", { method: "POST", json: { provider: "openai", keys: [{ value: "sk-documented", models: ["gpt-4o-mini"] }], network_config: { base_url: "http://127.0.0.1:9" } } });
    const paths = ["/api/governance/teams", "/api/governance/virtual-keys", "/api/providers", "/api/mcp/clients", "/api/logs", "/api/models", "/api/governance/budgets", "/api/governance/rate-limits", "/api/config", "/api/version", "/api/warp/conversations", "/api/mcp/per-user-headers/flows", "/v1/models"];
    for (const path of paths) {
      const reply = await gateway.admin(path);
      expect({ path, status: reply.status }).toEqual({ path, status: 200 });
      const validate = documentedSchema("get", path, 200);
      const body = await reply.json();
      expect({ path, errors: validate(body) ? [] : validate.errors }).toEqual({ path, errors: [] });
    }
  });

  test("the main replies are named schemas a generated client can call by name, each written once", () => {
    const named = ["VirtualKey", "VirtualKeyList", "VirtualKeyIssued", "Team", "Customer", "Provider", "ProviderKey", "LogEntry", "LogPage", "McpClient", "WebhookEndpoint", "AsyncJobStatus", "BudgetUsage", "Quota", "RuntimeSettings", "OpenAIModelList"];
    expect(named.filter((name) => !document.components.schemas[name])).toEqual([]);
    expect(document.paths["/api/governance/virtual-keys/{id}"]!.get!.responses["200"]!.content!["application/json"]!.schema).toEqual({ $ref: "#/components/schemas/VirtualKeyReply" });
    // A title left inline is one two different schemas share: a client would get one of them under that name.
    const replySchemas = Object.values(document.paths).flatMap((item) => Object.values(item).flatMap((operation) => Object.values(operation.responses).flatMap((response) => Object.values(response.content ?? {}).map((media) => media.schema))));
    const inlineTitles = JSON.stringify(replySchemas).match(/"title":"[A-Za-z0-9]+"/g) ?? [];
    expect(inlineTitles).toEqual([]);
  });

  test("the main operations show examples: each reply example matches its documented schema, and the create example creates a key", async () => {
    const examples = [
      ["get", "/api/governance/virtual-keys", 200],
      ["post", "/api/governance/virtual-keys", 201],
      ["get", "/api/providers", 200],
      ["post", "/api/providers", 201],
      ["get", "/api/logs", 200],
      ["get", "/api/logs/{id}", 200],
      ["post", "/v1/chat/completions", 200],
    ] as const;
    for (const [method, path, status] of examples) {
      const media = document.paths[path]![method]!.responses[status]!.content!["application/json"]!;
      const validate = documentedSchema(method, path, status);
      expect({ path, example: media.example !== undefined, errors: validate(media.example) ? [] : validate.errors }).toEqual({ path, example: true, errors: [] });
    }
    const requestExample = (path: string) => (document.paths[path]!.post!.requestBody!.content["application/json"]!.schema as { examples?: unknown[] }).examples?.[0];
    expect(requestExample("/v1/chat/completions")).toMatchObject({ model: expect.stringContaining("/") });
    const created = await gateway.admin("/api/governance/virtual-keys", { method: "POST", json: requestExample("/api/governance/virtual-keys") });
    expect(created.status).toBe(201);
  });

  test("every management operation, and every /v1 reply the gateway builds itself, describes its success", () => {
    const builtHere = (path: string) => path.startsWith("/api/") || path.startsWith("/v1/async/") || GATEWAY_BUILT.includes(path);
    const operations = Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ path, method, operation })));
    const checked = operations.filter(({ path }) => builtHere(path));
    const undescribed = checked.filter(({ operation }) => !describesSuccess(operation.responses)).map(({ method, path }) => `${method.toUpperCase()} ${path}`);
    console.log(`success described: ${checked.length - undescribed.length} of ${checked.length} operations the gateway builds (${checked.filter(({ path }) => path.startsWith("/api/")).length} under /api)`);
    expect(undescribed).toEqual([]);
    expect(checked.filter(({ path }) => path.startsWith("/api/")).length).toBeGreaterThan(120);
  });
});

describe("the reply check the tests turn on (GATEWAY_CHECK_REPLIES)", () => {
  const Declared = t.Object({ count: t.Integer() });
  const Nested = t.Object({ items: t.Array(t.Object({ id: t.String() })), labels: t.Object({}, { additionalProperties: t.String() }) });
  // A plugin of its own, as every area mounts its routes: it does not share the app's settings.
  const area = new Elysia({ prefix: "/area" })
    .get("/undeclared", () => ({ items: [{ id: "a", secret: "sk-x" }], labels: {} }) as unknown as { items: Array<{ id: string }>; labels: Record<string, string> }, replies({ 200: Nested }, { summary: "A reply with a field its schema does not name" }))
    .get("/declared", () => ({ items: [{ id: "a" }], labels: { team: "red" } }), replies({ 200: Nested }, { summary: "A reply its schema names in full" }));
  const app = () =>
    new Elysia({ normalize: false })
      .use(errorHandler)
      .use(area)
      .get("/drifted", () => ({ count: "three" }) as unknown as { count: number }, replies({ 200: Declared }, { summary: "A reply that drifted from its schema" }))
      .get("/kept", () => ({ count: 3 }), replies({ 200: Declared }, { summary: "A reply that keeps its schema" }));
  let server: ReturnType<typeof app>;
  beforeAll(() => {
    server = app().listen({ port: 0, hostname: "127.0.0.1" });
  });
  afterAll(() => server.stop(true));

  test("answers a reply that does not match its declared schema as a 500 naming the field, and lets a matching one through", async () => {
    const drifted = await fetch(`http://127.0.0.1:${server.server!.port}/drifted`);
    const body = await expectGatewayError(drifted, 500, { errorType: "gateway_reply_contract_broken" });
    expect(body.error.message).toContain("/count");
    const kept = await fetch(`http://127.0.0.1:${server.server!.port}/kept`);
    expect({ status: kept.status, body: await kept.json() }).toEqual({ status: 200, body: { count: 3 } });
  });

  test("fails a reply carrying a field its schema does not name, at any depth, instead of dropping it or letting it through", async () => {
    const undeclared = await fetch(`http://127.0.0.1:${server.server!.port}/area/undeclared`);
    const body = await expectGatewayError(undeclared, 500, { errorType: "gateway_reply_contract_broken" });
    expect(body.error.message).toContain("/items/0/secret");
    const declared = await fetch(`http://127.0.0.1:${server.server!.port}/area/declared`);
    expect({ status: declared.status, body: await declared.json() }).toEqual({ status: 200, body: { items: [{ id: "a" }], labels: { team: "red" } } });
  });
});
