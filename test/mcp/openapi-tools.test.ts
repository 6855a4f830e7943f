import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { stringify } from "yaml";
import { AUTH_CONFIG, bearer, call, createApiKey } from "../access/access-client";
import { type ScriptedModel, startScriptedModel } from "../support/mcp-scripted-model";
import { eventually } from "../support/eventually";
import { expectGatewayError } from "../support/gateway-error";
import type { TestGateway } from "../support/gateway";
import { type ClientView, clientWhen, createMcpClient, executeTool, listClients, startMcpGateway, toolContent } from "./support";

const TOKEN = "pets-token-8f3a2c71d9";
const WEATHER_KEY = "weather-key-41b7e09c";

/** What the API received, one entry per request. */
interface Received {
  method: string;
  path: string;
  query: Record<string, string[]>;
  authorization: string | null;
  body: unknown;
}

/** The pet store's own OpenAPI document: a path parameter, a query, a JSON body whose schema is a $ref, bearer auth and a 404. */
const petsDocument = {
  openapi: "3.0.3",
  info: { title: "Pets", version: "1.0.0", description: "Adopt a pet." },
  servers: [{ url: "/v1" }],
  security: [{ petsAuth: [] }],
  components: {
    securitySchemes: { petsAuth: { type: "http", scheme: "bearer" } },
    schemas: {
      NewPet: { type: "object", required: ["name"], properties: { name: { type: "string" }, tags: { type: "array", items: { type: "string" } } } },
      Pet: { allOf: [{ $ref: "#/components/schemas/NewPet" }, { type: "object", properties: { id: { type: "integer" } } }] },
    },
    parameters: { PetId: { name: "petId", in: "path", required: true, description: "The pet's id", schema: { type: "integer" } } },
  },
  paths: {
    "/pets": {
      get: {
        operationId: "listPets",
        tags: ["pets"],
        summary: "List the pets",
        parameters: [
          { name: "limit", in: "query", schema: { type: "integer" } },
          { name: "tag", in: "query", schema: { type: "array", items: { type: "string" } } },
        ],
        responses: { "200": { description: "pets" } },
      },
      post: {
        operationId: "createPet",
        tags: ["pets"],
        summary: "Add a pet",
        requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/NewPet" } } } },
        responses: { "201": { description: "created" } },
      },
    },
    "/pets/{petId}": {
      parameters: [{ $ref: "#/components/parameters/PetId" }],
      get: { operationId: "get pet!", tags: ["pets"], summary: "One pet", responses: { "200": { description: "a pet" } } },
      delete: { operationId: "deletePet", tags: ["admin"], responses: { "204": { description: "gone" } } },
    },
  },
};

/** A small weather API whose inline document asks for an API key in the query. */
const weatherDocument = (baseUrl: string) => ({
  openapi: "3.1.0",
  info: { title: "Weather", version: "1" },
  servers: [{ url: baseUrl }],
  components: { securitySchemes: { key: { type: "apiKey", in: "query", name: "api_key" } } },
  security: [{ key: [] }],
  paths: { "/forecast/{city}": { get: { operationId: "forecast", parameters: [{ name: "city", in: "path", required: true, schema: { type: "string" } }], responses: { "200": { description: "ok" } } } } },
});

let gw: TestGateway;
let model: ScriptedModel;
let api: ReturnType<typeof Bun.serve>;
let apiUrl: string;
const received: Received[] = [];
const pets = new Map<number, { id: number; name: string; tags?: string[] }>([[1, { id: 1, name: "Rex" }]]);

function startApi() {
  return Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      if (url.pathname === "/openapi.yaml") return new Response(stringify(petsDocument), { headers: { "content-type": "application/yaml" } });
      const query: Record<string, string[]> = {};
      for (const [name, value] of url.searchParams) (query[name] ??= []).push(value);
      const body = request.method === "POST" ? await request.json() : undefined;
      received.push({ method: request.method, path: url.pathname, query, authorization: request.headers.get("authorization"), body });
      if (url.pathname.startsWith("/forecast/")) {
        if (url.searchParams.get("api_key") !== WEATHER_KEY) return Response.json({ error: "bad key" }, { status: 401 });
        return new Response(`Sunny in ${decodeURIComponent(url.pathname.slice("/forecast/".length))}`, { headers: { "content-type": "text/plain" } });
      }
      if (request.headers.get("authorization") !== `Bearer ${TOKEN}`) return Response.json({ error: "unauthorized" }, { status: 401 });
      if (url.pathname === "/v1/pets" && request.method === "GET") return Response.json([...pets.values()].slice(0, Number(url.searchParams.get("limit") ?? 100)));
      if (url.pathname === "/v1/pets" && request.method === "POST") {
        const pet = { id: pets.size + 1, ...(body as { name: string }) };
        pets.set(pet.id, pet);
        return Response.json(pet, { status: 201 });
      }
      if (url.pathname === "/v1/pets/7") return new Response(null, { status: 302, headers: { location: `http://127.0.0.1:${api.port}/collect` } });
      const pet = pets.get(Number(url.pathname.split("/").at(-1)));
      return pet ? Response.json(pet) : Response.json({ error: `no pet ${url.pathname.split("/").at(-1)}` }, { status: 404 });
    },
  });
}

const clients: Client[] = [];
async function connect(path: string): Promise<Client> {
  const client = new Client({ name: "openapi-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}${path}`)));
  clients.push(client);
  return client;
}
const textOf = (result: Awaited<ReturnType<Client["callTool"]>>) => (result.content as Array<{ type: string; text: string }>).map((part) => part.text).join("");

let petsClient: ClientView;

beforeAll(async () => {
  api = startApi();
  apiUrl = `http://127.0.0.1:${api.port}`;
  model = startScriptedModel();
  gw = await startMcpGateway({ edition: "enterprise", auth: AUTH_CONFIG, providers: { openai: { keys: [{ value: "sk-model-key" }], network_config: { base_url: model.baseUrl } } } });
  petsClient = await createMcpClient(gw, {
    name: "pets",
    connection_type: "openapi",
    connection_string: `${apiUrl}/openapi.yaml`,
    openapi: { exclude_tags: ["admin"], credentials: { petsAuth: TOKEN } },
    tools_to_execute: ["*"],
    tool_pricing: { listPets: 0.002 },
  });
  await createMcpClient(gw, { name: "weather", connection_type: "openapi", openapi: { document: JSON.stringify(weatherDocument(apiUrl)), credentials: { key: WEATHER_KEY } }, tools_to_execute: ["*"], tools_to_auto_execute: ["*"] });
}, 30_000);
afterAll(async () => {
  for (const client of clients) await client.close();
  await gw.close();
  model.stop();
  api.stop(true);
});

describe("an OpenAPI document registered as an MCP client", () => {
  test("its selected operations are its tools: operationIds sanitised, parameters and the $ref'd body as the input schema", async () => {
    expect(petsClient.state).toBe("connected");
    const client = await connect("/mcp/pets");
    expect(client.getServerVersion()).toMatchObject({ name: "Pets", version: "1.0.0" });
    expect(client.getInstructions()).toBe("Adopt a pet.");
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(["createPet", "get_pet", "listPets"]);
    const getPet = tools.find((tool) => tool.name === "get_pet")!;
    expect(getPet.description).toContain("One pet (GET /pets/{petId})");
    expect(getPet.inputSchema).toEqual({ type: "object", properties: { petId: { type: "integer", description: "The pet's id" } }, required: ["petId"] });
    expect(getPet.annotations?.readOnlyHint).toBe(true);
    const createPet = tools.find((tool) => tool.name === "createPet")!;
    expect(createPet.inputSchema).toMatchObject({ properties: { body: { type: "object", required: ["name"], properties: { name: { type: "string" } } } }, required: ["body"] });
  });

  test("a call is the HTTP request its arguments describe, with the bearer token from the gateway's secrets; the reply is the result", async () => {
    const client = await connect("/mcp/pets");
    const one = await client.callTool({ name: "get_pet", arguments: { petId: 1 } });
    expect(one.isError).toBeFalsy();
    expect(JSON.parse(textOf(one))).toEqual({ id: 1, name: "Rex" });
    expect(received.at(-1)).toMatchObject({ method: "GET", path: "/v1/pets/1", authorization: `Bearer ${TOKEN}` });

    const created = await client.callTool({ name: "createPet", arguments: { body: { name: "Tom", tags: ["cat"] } } });
    expect(JSON.parse(textOf(created))).toEqual({ id: 2, name: "Tom", tags: ["cat"] });
    expect(received.at(-1)).toMatchObject({ method: "POST", path: "/v1/pets", body: { name: "Tom", tags: ["cat"] } });

    const listed = await client.callTool({ name: "listPets", arguments: { limit: 1, tag: ["cat", "dog"] } });
    expect(JSON.parse(textOf(listed))).toHaveLength(1);
    expect(received.at(-1)).toMatchObject({ path: "/v1/pets", query: { limit: ["1"], tag: ["cat", "dog"] } });
  });

  test("an error status is the tool's failure (isError) with the API's body", async () => {
    const client = await connect("/mcp/pets");
    const missing = await client.callTool({ name: "get_pet", arguments: { petId: 404 } });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toBe('HTTP 404 Not Found: {"error":"no pet 404"}');
  });

  test("a redirect is not followed: the credentials reach the API's own address only", async () => {
    const client = await connect("/mcp/pets");
    const redirected = await client.callTool({ name: "get_pet", arguments: { petId: 7 } });
    expect(redirected.isError).toBe(true);
    expect(textOf(redirected)).toContain(`HTTP 302: the API redirects to http://127.0.0.1:${api.port}/collect`);
    expect(received.some((request) => request.path === "/collect")).toBe(false);
  });

  test("an excluded operation is no tool", async () => {
    const client = await connect("/mcp/pets");
    await expect(client.callTool({ name: "deletePet", arguments: { petId: 1 } })).rejects.toThrow();
    expect(received.some((request) => request.method === "DELETE")).toBe(false);
  });

  test("an API key in the query, from an inline document, through /v1/mcp/tool/execute and the aggregated /mcp", async () => {
    expect(await toolContent(await executeTool(gw, "weather-forecast", { city: "Porto" }))).toBe("Sunny in Porto");
    expect(received.at(-1)).toMatchObject({ path: "/forecast/Porto", query: { api_key: [WEATHER_KEY] } });
    const client = await connect("/mcp");
    expect(textOf(await client.callTool({ name: "weather-forecast", arguments: { city: "Lima" } }))).toBe("Sunny in Lima");
  });

  test("in a chat request the model is offered its tools, and agent mode runs them", async () => {
    const response = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-gw-mcp-include-clients": "weather" },
      body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: 'call weather-forecast {"city":"Faro"}' }] }),
    });
    expect(((await response.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe("results: Sunny in Faro");
    const offered = model.requests.at(0)!.tools as Array<{ function: { name: string; parameters: unknown } }>;
    expect(offered.map((tool) => tool.function)).toEqual([expect.objectContaining({ name: "weather-forecast", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } })]);
  });

  test("calls are logged and priced like any MCP tool's, and no reply or log carries the API's secrets", async () => {
    const client = await connect("/mcp/pets");
    await client.callTool({ name: "listPets", arguments: {} });
    const logs = await eventually(
      async () => (await (await gw.admin("/api/mcp-logs?server_labels=pets&tool_names=listPets")).json()) as { logs: Array<{ status: string; cost: number | null }> },
      (page) => page.logs.some((log) => log.status === "success"),
    );
    expect(logs.logs[0]).toMatchObject({ status: "success", cost: 0.002 });
    const everything = [await (await gw.admin("/api/mcp-logs?limit=100")).text(), await (await gw.admin("/api/mcp/clients")).text()].join("\n");
    expect(everything).toContain("listPets");
    expect(everything).not.toContain(TOKEN);
    expect(everything).not.toContain(WEATHER_KEY);
    const view = JSON.parse(await (await gw.admin("/api/mcp/clients")).text()) as { clients: Array<{ name: string; openapi: { credentials: Record<string, string>; exclude_tags: string[] } }> };
    expect(view.clients.find((entry) => entry.name === "pets")?.openapi).toMatchObject({ exclude_tags: ["admin"], credentials: { petsAuth: expect.stringContaining("*") } });
  });
});

describe("changing an OpenAPI client", () => {
  test("a new selection changes its tools; its credential written back redacted keeps the stored value", async () => {
    const before = (await listClients(gw)).find((entry) => entry.name === "pets") as ClientView & { openapi: { credentials: Record<string, string> } };
    const response = await gw.admin(`/api/mcp/client/${petsClient.id}`, { method: "PUT", json: { openapi: { include_operations: ["get pet!"], credentials: before.openapi.credentials } } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as ClientView).tools.map((tool) => tool.name)).toEqual(["get_pet"]);
    const client = await connect("/mcp/pets");
    expect(JSON.parse(textOf(await client.callTool({ name: "get_pet", arguments: { petId: 2 } })))).toMatchObject({ name: "Tom" });
    expect(received.at(-1)).toMatchObject({ path: "/v1/pets/2", authorization: `Bearer ${TOKEN}` });
  });
});

describe("POST /api/mcp/openapi/operations", () => {
  test("lists every operation of a document as the tool it would be, to pick from before registering it", async () => {
    const response = await gw.admin("/api/mcp/openapi/operations", { method: "POST", json: { connection_string: `${apiUrl}/openapi.yaml` } });
    expect(response.status).toBe(200);
    const { operations } = (await response.json()) as { operations: Array<Record<string, unknown>> };
    expect(operations.map((operation) => `${operation.method} ${operation.path} ${operation.tool_name}`)).toEqual(["GET /pets listPets", "POST /pets createPet", "GET /pets/{petId} get_pet", "DELETE /pets/{petId} deletePet"]);
    expect(operations[2]).toEqual({ tool_name: "get_pet", operation_id: "get pet!", method: "GET", path: "/pets/{petId}", summary: "One pet", tags: ["pets"] });
    await expectGatewayError(await gw.admin("/api/mcp/openapi/operations", { method: "POST", json: { document: "openapi: 3.0.0\npaths: []" } }), 400, { param: "document.paths" });
  });
});

describe("an OpenAPI client is checked when it is written", () => {
  const write = (body: Record<string, unknown>) => gw.admin("/api/mcp/client", { method: "POST", json: { name: "bad", connection_type: "openapi", tools_to_execute: ["*"], ...body } });
  const inline = (document: unknown, extra: Record<string, unknown> = {}) => write({ openapi: { document: typeof document === "string" ? document : JSON.stringify(document), ...extra } });

  test("a document that is not OpenAPI 3 is a 400 naming its field", async () => {
    await expectGatewayError(await inline("swagger: '2.0'\npaths: {}\n"), 400, { param: "openapi.document.openapi", errorType: "caller_openapi_document_invalid" });
    await expectGatewayError(await inline("{not json"), 400, { param: "openapi.document" });
    await expectGatewayError(await inline({ ...weatherDocument(apiUrl), paths: { "/a": { get: { operationId: "x", responses: {} } }, "/b": { get: { operationId: "x", responses: {} } } } }), 400, { param: 'openapi.document.paths["/b"].get.operationId' });
    await expectGatewayError(await inline({ ...weatherDocument(apiUrl), paths: { "/a": { get: { requestBody: { $ref: "#/components/requestBodies/Gone" } } } } }), 400, { param: 'openapi.document.paths["/a"].get.requestBody.$ref' });
  });

  test("a selection or credential naming nothing in the document is a 400 naming it", async () => {
    await expectGatewayError(await inline(weatherDocument(apiUrl), { include_operations: ["forecast", "nowcast"] }), 400, { param: "openapi.include_operations[1]" });
    await expectGatewayError(await inline(weatherDocument(apiUrl), { credentials: { token: "x" } }), 400, { param: "openapi.credentials.token" });
    await expectGatewayError(await write({ connection_string: `${apiUrl}/missing.yaml` }), 400, { param: "connection_string" });
  });

  test("the API's address is under the outbound policy: a metadata address is refused to everyone, a loopback one to a writer who may not reach it", async () => {
    await expectGatewayError(await inline(weatherDocument("http://169.254.169.254/latest")), 400, { param: "openapi.document.servers[0].url", errorType: "caller_address_refused" });
    const writer = await createApiKey(gw, "mcp-writer", ["MCP:View", "MCP:Create"]);
    const asWriter = await call(gw, "/api/mcp/client", { method: "POST", headers: bearer(writer), json: { name: "local", connection_type: "openapi", openapi: { document: JSON.stringify(weatherDocument(apiUrl)) } } });
    await expectGatewayError(asWriter, 403, { param: "openapi.document.servers[0].url", errorType: "policy_private_address_refused" });
    expect((await listClients(gw)).map((entry) => entry.name).sort()).toEqual(["pets", "weather"]);
  });
});

describe("after a restart", () => {
  test("the stored document, selection and credentials serve the same tools", async () => {
    await gw.stop();
    gw = await gw.restart();
    await clientWhen(gw, petsClient.id, (entry) => entry.state === "connected");
    expect(await toolContent(await executeTool(gw, "weather-forecast", { city: "Braga" }))).toBe("Sunny in Braga");
    expect(received.at(-1)).toMatchObject({ path: "/forecast/Braga", query: { api_key: [WEATHER_KEY] } });
    expect(JSON.parse(await toolContent(await executeTool(gw, "pets-get_pet", { petId: 1 })))).toEqual({ id: 1, name: "Rex" });
    expect(received.at(-1)).toMatchObject({ path: "/v1/pets/1", authorization: `Bearer ${TOKEN}` });
    expect((await listClients(gw)).find((entry) => entry.name === "pets")!.tools.map((tool) => tool.name)).toEqual(["get_pet"]);
  });
});
