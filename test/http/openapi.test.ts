import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import Ajv2020 from "ajv/dist/2020";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

interface Operation {
  tags: string[];
  security: Array<Record<string, string[]>>;
  parameters: Array<{ name: string; in: string }>;
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { $ref?: string; content?: Record<string, { schema: unknown }> }>;
}
interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; responses: Record<string, { content?: Record<string, { schema: unknown }> }>; securitySchemes: Record<string, { type: string; in?: string; name?: string; scheme?: string }> };
  tags: Array<{ name: string }>;
}

let gateway: TestGateway;
let upstream: MockOpenAI;
let document: OpenApiDocument;
beforeAll(async () => {
  upstream = startMockOpenAI();
  gateway = await startGateway({ providers: { openai: { keys: [{ id: "k", value: "sk-doc", models: ["*"] }], network_config: { base_url: upstream.baseUrl } } } });
  const response = await fetch(`${gateway.url}/api/openapi.json`);
  expect(response.headers.get("content-type")).toContain("application/json");
  document = (await response.json()) as OpenApiDocument;
});
afterAll(async () => {
  await gateway.close();
  upstream.stop();
});

const operation = (method: string, path: string) => document.paths[path]?.[method];

describe("GET /api/openapi.json", () => {
  test("is a valid OpenAPI 3.1 document, served without credentials", async () => {
    expect(document.openapi).toStartWith("3.1");
    const result = await new Validator().validate(structuredClone(document) as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  test("documents every route the gateway serves, with its path parameters", () => {
    const missing: string[] = [];
    for (const route of gateway.gateway.app.routes) {
      // Elysia's `:id` and trailing `*` are OpenAPI's `{id}` and a last `{…}` parameter; a group's root has no trailing slash.
      const pattern = new RegExp(`^${route.path.replace(/(.)\/$/, "$1").replace(/[.]/g, "\\.").replace(/:(\w+)/g, "\\{$1\\}").replace(/\*$/, "\\{\\w+\\}")}$`);
      const methods = route.method === "WS" ? ["get"] : route.method === "ALL" ? ["get", "post"] : [route.method.toLowerCase()];
      const documented = Object.entries(document.paths).filter(([path]) => pattern.test(path));
      for (const method of methods) {
        const found = documented.find(([, item]) => item[method]);
        if (!found) {
          missing.push(`${route.method} ${route.path}`);
          continue;
        }
        const [path, item] = found;
        const names = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name!);
        const declared = item[method]!.parameters.filter((parameter) => parameter.in === "path").map((parameter) => parameter.name);
        expect({ path, declared: declared.toSorted() }).toEqual({ path, declared: names.toSorted() });
      }
    }
    expect(missing).toEqual([]);
    expect(gateway.gateway.app.routes.length).toBeGreaterThan(500);
  });

  test("tags each route with its area, and lists every tag it uses", () => {
    const samples: Array<[string, string, string]> = [
      ["post", "/api/providers", "providers"],
      ["post", "/api/governance/virtual-keys", "governance"],
      ["get", "/api/logs", "logs"],
      ["get", "/api/ws", "logs"],
      ["post", "/v1/chat/completions", "inference: OpenAI"],
      ["post", "/anthropic/v1/messages", "inference: Anthropic"],
      ["post", "/cohere/v2/chat", "inference: Cohere"],
      ["post", "/mcp", "mcp"],
      ["get", "/api/mcp-logs", "mcp"],
      ["get", "/health/ready", "system"],
      ["get", "/metrics", "system"],
      ["post", "/api/session/login", "access"],
      ["post", "/v1/async/chat/completions", "async"],
    ];
    expect(samples.map(([method, path]) => [method, path, operation(method, path)?.tags])).toEqual(samples.map(([method, path, tag]) => [method, path, [tag]]));
    const listed = new Set(document.tags.map((tag) => tag.name));
    const used = Object.values(document.paths).flatMap((item) => Object.values(item).flatMap((entry) => entry.tags));
    expect(used.filter((tag) => !listed.has(tag))).toEqual([]);
  });

  test("names the credentials: setup token, session cookie, bearer API key, and every virtual key form", () => {
    const schemes = document.components.securitySchemes;
    expect(schemes.setupToken).toMatchObject({ type: "apiKey", in: "header", name: "X-Gateway-Setup-Token" });
    expect(schemes.sessionCookie).toMatchObject({ type: "apiKey", in: "cookie", name: "gateway_session" });
    expect(schemes.managementBearer).toMatchObject({ type: "http", scheme: "bearer" });
    const virtualKeyHeaders = Object.values(schemes).filter((scheme) => scheme.type === "apiKey" && scheme.in === "header").map((scheme) => scheme.name);
    expect(virtualKeyHeaders).toEqual(expect.arrayContaining(["x-gw-vk", "x-api-key", "x-goog-api-key", "api-key"]));
    expect(operation("post", "/api/governance/virtual-keys")!.security).toEqual(expect.arrayContaining([{ setupToken: [] }, { sessionCookie: [] }, { managementBearer: [] }]));
    expect(operation("get", "/api/version")!.security).toEqual([]);
    expect(operation("post", "/v1/chat/completions")!.security).toEqual(expect.arrayContaining([{ virtualKeyHeader: [] }, { virtualKeyBearer: [] }]));
  });

  test("the error body it documents is the one a bad request gets", async () => {
    const refused = await gateway.admin("/api/governance/virtual-keys", { method: "POST", json: { name: 42 } });
    expect(refused.status).toBe(400);
    const validate = new Ajv2020({ strict: false }).compile(document.components.schemas.GatewayError as object);
    expect(validate(await refused.json())).toBe(true);
    expect(validate({ error: "a different shape" })).toBe(false);
    expect(operation("post", "/api/governance/virtual-keys")!.responses["400"]).toEqual({ $ref: "#/components/responses/Error400" });
    expect(document.components.responses.Error400!.content!["application/json"]!.schema).toEqual({ $ref: "#/components/schemas/GatewayError" });
  });
});

/** The routes whose body may name a stored prompt (docs/prompts.md) in place of its messages. */
const PROMPTED_ROUTES = ["/v1/chat/completions", "/v1/responses", "/anthropic/v1/messages", "/api/playground/chat/completions"];

describe("the documented request schemas accept what the routes accept", () => {
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  beforeAll(async () => {
    const prompt = { name: "doc-greeting", messages: [{ role: "user", content: "Greet {{who}}" }], model: "openai/gpt-4o-mini", parameters: { max_tokens: 16 } };
    expect((await gateway.admin("/api/prompts", { method: "POST", json: prompt })).status).toBe(201);
  });

  test("the routes that take a stored prompt declare `prompt`, and need neither the model nor the messages beside it", () => {
    for (const path of PROMPTED_ROUTES) {
      const schema = operation("post", path)?.requestBody?.content["application/json"]?.schema as { properties: Record<string, { anyOf?: unknown[] }>; required?: string[] };
      const reference = schema.properties.prompt?.anyOf?.[0] ?? schema.properties.prompt;
      expect({ path, reference }).toMatchObject({ path, reference: { type: "object", required: ["name"], properties: { name: { type: "string" }, variables: { type: "object" } } } });
      expect({ path, required: schema.required ?? [] }).toEqual({ path, required: [] });
    }
  });
  const documentedBody = (method: string, path: string) => {
    const schema = operation(method, path)?.requestBody?.content["application/json"]?.schema;
    expect(schema).toBeDefined();
    return ajv.compile({ ...(schema as object), components: document.components });
  };

  const accepted: Array<[method: string, path: string, body: unknown, what?: string]> = [
    ["post", "/api/providers", { provider: "anthropic", keys: [{ id: "a", value: "sk-ant-doc", models: ["claude-*"], weight: 1 }], network_config: { max_retries: 2 } }],
    ["post", "/api/governance/virtual-keys", { name: "documented", description: "from the sample", provider_configs: [{ provider: "openai", allowed_models: ["gpt-4o-mini"] }] }],
    ["put", "/api/config", { logs_store: { retention_days: 7 }, stored_responses: { enabled: true } }],
    ["post", "/v1/chat/completions", { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }], temperature: 0.2, max_tokens: 16 }],
    ["post", "/v1/embeddings", { model: "openai/text-embedding-3-small", input: ["one", "two"] }],
    // A stored prompt gives the model, the messages (or input) and max_tokens: the body may name only it.
    ...PROMPTED_ROUTES.map((path): [string, string, unknown, string] => ["post", path, { prompt: { name: "doc-greeting", variables: { who: "the reader" } } }, "with only a stored prompt"]),
  ];
  for (const [method, path, body, what = ""] of accepted) {
    test(`${method.toUpperCase()} ${path} ${what}`.trim(), async () => {
      const response = await gateway.admin(path, { method: method.toUpperCase(), json: body });
      expect(response.status).toBeLessThan(300);
      const validate = documentedBody(method, path);
      expect(validate(body) ? [] : validate.errors).toEqual([]);
    });
  }

  const refused: Array<[method: string, path: string, body: unknown, field: string]> = [
    ["post", "/api/governance/virtual-keys", { name: "" }, "name"],
    ["put", "/api/config", { logs_store: { retention_days: 0 } }, "logs_store.retention_days"],
    ...PROMPTED_ROUTES.map((path): [string, string, unknown, string] => ["post", path, { prompt: { name: "Doc Greeting" } }, "prompt.name"]),
  ];
  for (const [method, path, body, field] of refused) {
    test(`${method.toUpperCase()} ${path} refuses ${JSON.stringify(body)}, and so does its documented schema`, async () => {
      const response = await gateway.admin(path, { method: method.toUpperCase(), json: body });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { param?: string } }).error.param).toBe(field);
      expect(documentedBody(method, path)(body)).toBe(false);
    });
  }
});

describe("GET /api/docs", () => {
  test("is a page of our own that renders the document with nothing fetched from elsewhere", async () => {
    const response = await fetch(`${gateway.url}/api/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/html");
    const page = await response.text();
    expect(page).toContain('fetch("openapi.json")');
    expect(page.match(/(?:src|href)="(?:https?:)?\/\/[^"]*"/g) ?? []).toEqual([]);
    expect(page).not.toMatch(/https?:\/\//);
  });
});
