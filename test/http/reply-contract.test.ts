import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Type as t } from "@sinclair/typebox";
import Ajv2020 from "ajv/dist/2020";
import { Elysia } from "elysia";
import { errorHandler } from "../../src/http/error-handler";
import { replies } from "../../src/http/replies";
import { startGateway, type TestGateway } from "../support/gateway";
import { expectGatewayError } from "../support/gateway-error";

interface Documented {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>>;
  components: { schemas: Record<string, object> };
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
  return new Ajv2020({ strict: false, validateFormats: false }).compile(schema!);
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

  test("lists and reads of teams, providers, MCP clients and logs match their documented schemas", async () => {
    await gateway.admin("/api/governance/teams", { method: "POST", json: { name: "documented-team" } });
    await gateway.admin("/api/providers", { method: "POST", json: { provider: "openai", keys: [{ value: "sk-documented", models: ["gpt-4o-mini"] }], network_config: { base_url: "http://127.0.0.1:9" } } });
    for (const path of ["/api/governance/teams", "/api/governance/virtual-keys", "/api/providers", "/api/mcp/clients", "/api/logs", "/api/models"]) {
      const reply = await gateway.admin(path);
      expect({ path, status: reply.status }).toEqual({ path, status: 200 });
      const validate = documentedSchema("get", path, 200);
      const body = await reply.json();
      expect({ path, errors: validate(body) ? [] : validate.errors }).toEqual({ path, errors: [] });
    }
  });

  test("counts the operations whose success body is described", () => {
    const operations = Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ path, method, operation })));
    const described = operations.filter(({ operation }) => Object.entries(operation.responses).some(([status, response]) => status.startsWith("2") && response.content));
    const management = operations.filter(({ path }) => path.startsWith("/api/"));
    console.log(`success bodies described: ${described.length} of ${operations.length} operations (${described.filter(({ path }) => path.startsWith("/api/")).length} of ${management.length} under /api)`);
    expect(described.length).toBeGreaterThanOrEqual(30);
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
