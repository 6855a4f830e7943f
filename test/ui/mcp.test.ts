import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { seriousViolations } from "../support/axe";
import { chartInk } from "../support/chart-ink";
import { type Browser, DASHBOARD_AUTH, launchBrowser, signIn, type WatchedPage } from "../support/browser";
import { eventually } from "../support/eventually";
import { startGateway, type TestGateway } from "../support/gateway";
import { type McpConformanceServer, startMcpConformanceServer } from "../support/mcp-conformance-server";
import { type McpHttpServer, startMcpHttpServer } from "../support/mcp-http-server";

let server: McpHttpServer;
let everything: McpConformanceServer;
/** A tiny HTTP API the OpenAPI test registers: it greets whoever presents its key. */
let greeter: ReturnType<typeof Bun.serve>;
let gw: TestGateway;
let browser: Browser;
let watched: WatchedPage;

beforeAll(async () => {
  server = startMcpHttpServer();
  everything = startMcpConformanceServer();
  greeter = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (request) => (request.headers.get("x-key") === "greeter-secret" ? new Response(`Hello, ${new URL(request.url).searchParams.get("name")}`) : new Response("no key", { status: 401 })),
  });
  // Enterprise: a virtual server may admit roles and dashboard users.
  gw = await startGateway({ edition: "enterprise", auth: DASHBOARD_AUTH });
  browser = await launchBrowser();
  watched = await browser.open(`${gw.url}/ui/mcp`);
  await signIn(watched.page);
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
  await server?.stop();
  await everything?.stop();
  greeter?.stop(true);
});

const page = () => watched.page;

describe("MCP page", () => {
  test("a registered server shows its tools, says plainly when it exposes none, and its calls are logged", async () => {
    await page().getByRole("heading", { name: "No MCP server yet" }).waitFor();
    await page().getByRole("button", { name: "Add MCP server" }).click();
    const form = page().getByRole("dialog", { name: "Add an MCP server" });
    await form.getByLabel("Name").fill("tools");
    await form.getByLabel("Transport").selectOption("http");
    await form.getByLabel("Server URL").fill(server.url);
    await form.getByLabel("Tools to expose").fill("");
    await form.getByRole("button", { name: "Add server" }).click();

    const card = page().getByRole("region", { name: "MCP server tools" });
    await eventually(
      async () => {
        await page().getByRole("button", { name: "Refresh" }).click();
        return card.getByRole("table", { name: "Tools of tools" }).getByRole("cell", { name: "get_weather" }).count();
      },
      (count) => count === 1,
      10_000,
    );
    await card.getByText("connected", { exact: true }).waitFor();
    await card.getByRole("note").getByText("This server exposes no tools").waitFor();
    await card.getByText("The server offers no resources and no prompts.").waitFor();

    await card.getByRole("button", { name: "Edit tools" }).click();
    const edit = page().getByRole("dialog", { name: "Edit MCP server tools" });
    await edit.getByLabel("Tools to expose").fill("*");
    await edit.getByRole("button", { name: "Save server" }).click();
    await card.getByRole("columnheader", { name: "Tool (3 of 3 exposed)" }).waitFor();
    expect(await card.getByRole("note").count()).toBe(0);

    const executed = await fetch(`${gw.url}/v1/mcp/tool/execute`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id: "call_1", type: "function", function: { name: "tools-get_weather", arguments: JSON.stringify({ city: "Oslo" }) } }),
    });
    expect(executed.status).toBe(200);

    await page().getByRole("navigation", { name: "MCP sections" }).getByRole("link", { name: "Tool calls" }).click();
    const calls = page().getByRole("table", { name: "Tool calls" });
    // Tool calls are logged in batches: reload until this one is.
    await eventually(
      async () => {
        await page().reload();
        await page().getByRole("search", { name: "Tool call filters" }).waitFor();
        return calls.getByRole("cell", { name: /Sunny and 21C in Oslo/ }).count();
      },
      (found) => found === 1,
    );
    await calls.getByText("success", { exact: true }).waitFor();
  });

  test("a server's resources, resource templates and prompts are listed beside its tools", async () => {
    await page().goto(`${gw.url}/ui/mcp`);
    await page().getByRole("button", { name: "Add MCP server" }).click();
    const form = page().getByRole("dialog", { name: "Add an MCP server" });
    await form.getByLabel("Name").fill("everything");
    await form.getByLabel("Server URL").fill(everything.url);
    expect(await form.getByLabel("MCP revision").inputValue()).toBe("auto");
    await form.getByLabel("MCP revision").selectOption("2025-11-25");
    await form.getByRole("button", { name: "Add server" }).click();

    const card = page().getByRole("region", { name: "MCP server everything" });
    const resources = card.getByRole("table", { name: "Resources of everything" });
    await eventually(
      async () => {
        await page().getByRole("button", { name: "Refresh" }).click();
        return resources.getByRole("cell", { name: "test://static-text" }).count();
      },
      (count) => count === 1,
      10_000,
    );
    await resources.getByRole("row", { name: /static-binary.*A PNG image.*image\/png/ }).waitFor();
    await card.getByRole("table", { name: "Resource templates of everything" }).getByRole("cell", { name: "test://template/{id}/data" }).waitFor();
    const prompts = card.getByRole("table", { name: "Prompts of everything" });
    await prompts.getByRole("row", { name: /test_simple_prompt.*A prompt with no arguments.*none/ }).waitFor();
    await prompts.getByRole("row", { name: /test_prompt_with_arguments.*arg1, arg2/ }).waitFor();
    expect(await card.getByText("The server offers no resources and no prompts.").count()).toBe(0);
    const { clients } = (await (await gw.admin("/api/mcp/clients")).json()) as { clients: Array<{ name: string; protocol_version: string; negotiated_protocol_version: string }> };
    expect(clients.find((client) => client.name === "everything")).toMatchObject({ protocol_version: "2025-11-25", negotiated_protocol_version: "2025-11-25" });
  });

  test("the cost of tool calls is drawn where the calls happened, and each call shows its cost", async () => {
    const { clients } = (await (await gw.admin("/api/mcp/clients")).json()) as { clients: Array<{ id: string; name: string }> };
    const tools = clients.find((client) => client.name === "tools")!;
    expect((await gw.admin(`/api/mcp/client/${tools.id}`, { method: "PUT", json: { tool_pricing: { get_weather: 0.006 } } })).status).toBe(200);
    const executed = await fetch(`${gw.url}/v1/mcp/tool/execute`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id: "call_2", type: "function", function: { name: "tools-get_weather", arguments: JSON.stringify({ city: "Bergen" }) } }),
    });
    expect(executed.status).toBe(200);
    await page().goto(`${gw.url}/ui/mcp`);
    await page().getByRole("navigation", { name: "MCP sections" }).getByRole("link", { name: "Tool calls" }).click();
    const chart = page().getByRole("figure", { name: "Cost of tool calls" });
    await eventually(
      async () => {
        await page().reload();
        await page().getByRole("search", { name: "Tool call filters" }).waitFor();
        return chart.count();
      },
      (found) => found === 1,
    );
    await page().getByRole("table", { name: "Tool calls" }).getByRole("row", { name: /Bergen.*\$0\.006/ }).waitFor();
    // The one bucket's point, in the series' colour (#10b981), is on the canvas.
    expect(await chartInk(page(), "Cost of tool calls", [16, 185, 129])).toBeGreaterThan(20);
    expect(await seriousViolations(page())).toEqual([]);
  });

  test("a virtual server composed from two servers' tools, renamed inline, is served to its key, with a snippet per client and its calls' cost", async () => {
    const created = await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name: "team-a-key" } });
    const key = ((await created.json()) as { virtual_key: { value: string } }).virtual_key;
    await page().getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Virtual servers" }).click();
    await page().getByRole("heading", { name: "No virtual server yet" }).waitFor();
    await page().getByRole("button", { name: "Add virtual server" }).click();
    const form = page().getByRole("dialog", { name: "Add a virtual server" });
    await form.getByLabel("Slug").fill("team-a");
    await form.getByLabel("Description").fill("Weather and tests for team A");
    await form.getByLabel("Include tools get_weather").check();
    await form.getByLabel("Name for tools get_weather").fill("test_simple_text");
    await form.getByLabel("Include everything test_simple_text").check();
    await form.getByLabel("Virtual key team-a-key").check();
    watched.expectFailure("POST", "/api/mcp/virtual-servers", 400);
    await form.getByRole("button", { name: "Add virtual server" }).click();
    await form.getByRole("alert").getByText("the name 'test_simple_text' is already taken by tools[0]").waitFor();

    await form.getByLabel("Name for tools get_weather").fill("forecast");
    await form.getByRole("button", { name: "Add virtual server" }).click();
    const card = page().getByRole("region", { name: "Virtual server team-a" });
    await card.getByRole("cell", { name: "forecast" }).waitFor();
    await card.getByText("1 virtual key").waitFor();
    const url = `${gw.url}/mcp/v/team-a`;
    expect(await card.getByLabel("Claude Code snippet").innerText()).toBe(`claude mcp add --transport http team-a ${url} --header "Authorization: Bearer sk-gw-your-virtual-key"`);
    await card.getByLabel("Client for team-a").selectOption("Cursor (.cursor/mcp.json)");
    expect(JSON.parse(await card.getByLabel("Cursor (.cursor/mcp.json) snippet").innerText())).toEqual({ mcpServers: { "team-a": { url, headers: { Authorization: "Bearer sk-gw-your-virtual-key" } } } });
    await card.getByLabel("Client for team-a").selectOption("VS Code (.vscode/mcp.json)");
    expect(JSON.parse(await card.getByLabel("VS Code (.vscode/mcp.json) snippet").innerText())).toMatchObject({ servers: { "team-a": { type: "http", url } } });
    expect(await seriousViolations(page())).toEqual([]);

    const client = new Client({ name: "ui-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${key.value}` } } }));
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(["forecast", "test_simple_text"]);
    expect(client.getInstructions()).toBe("Weather and tests for team A");
    await client.callTool({ name: "forecast", arguments: { city: "Tromsø" } });
    await client.close();
    await page().reload();
    expect(await card.getByLabel("Usage of team-a").innerText()).toBe("1 tool call · $0.006");
  });

  test("tool search is switched on in the virtual server's form: a client then lists search_tools and the pinned tool, and finds the other", async () => {
    const listed = async () => ((await (await gw.admin("/api/mcp/virtual-servers")).json()) as { virtual_servers: Array<{ id: string; tool_search: unknown; access: { virtual_key_ids: string[] } }> }).virtual_servers[0]!;
    const { id } = await listed();
    const card = page().getByRole("region", { name: "Virtual server team-a" });
    await card.getByRole("button", { name: "Edit team-a" }).click();
    const form = page().getByRole("dialog", { name: "Edit virtual server team-a" });
    await form.getByRole("checkbox", { name: /Offer search_tools and the pinned tools/ }).check();
    await form.getByLabel("Pinned tools", { exact: true }).fill("get_weather");
    watched.expectFailure("PUT", `/api/mcp/virtual-servers/${id}`, 400);
    await form.getByRole("button", { name: "Save virtual server" }).click();
    await form.getByRole("alert").getByText("the server serves no tool named 'get_weather'").waitFor();
    await form.getByLabel("Pinned tools", { exact: true }).fill("forecast");
    await form.getByRole("button", { name: "Save virtual server" }).click();
    await form.waitFor({ state: "detached" });

    const key = ((await (await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name: "team-a-search" } })).json()) as { virtual_key: { id: string; value: string } }).virtual_key;
    const server = await listed();
    expect(server.tool_search).toEqual({ enabled: true, pinned: ["forecast"] });
    await gw.admin(`/api/mcp/virtual-servers/${server.id}`, { method: "PUT", json: { access: { virtual_key_ids: [...server.access.virtual_key_ids, key.id] } } });
    const client = new Client({ name: "ui-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp/v/team-a`), { requestInit: { headers: { authorization: `Bearer ${key.value}` } } }));
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["search_tools", "forecast"]);
    const found = await client.callTool({ name: "search_tools", arguments: { query: "simple text test" } });
    expect(JSON.parse((found.content as Array<{ text: string }>)[0]!.text).tools.map((tool: { name: string }) => tool.name)).toEqual(["test_simple_text"]);
    await client.close();
  });

  test("a role and a dashboard user are picked in the virtual server's form, saved, and shown again after a reload", async () => {
    const { roles } = (await (await gw.admin("/api/governance/rbac/roles")).json()) as { roles: Array<{ id: number; name: string }> };
    const viewer = roles.find((role) => role.name === "Viewer")!;
    const createdUser = await gw.admin("/api/governance/rbac/users", { method: "POST", json: { username: "dana", role_id: viewer.id, password: "a long enough password 1" } });
    expect(createdUser.status).toBe(201);
    const dana = ((await createdUser.json()) as { id: string }).id;
    // The previous test gave the server a second key through the API: the page reads it again.
    await page().reload();
    const card = page().getByRole("region", { name: "Virtual server team-a" });
    await card.getByRole("button", { name: "Edit team-a" }).click();
    const form = page().getByRole("dialog", { name: "Edit virtual server team-a" });
    await form.getByLabel("Role Viewer").check();
    await form.getByLabel("User dana").check();
    await form.getByRole("button", { name: "Save virtual server" }).click();
    await form.waitFor({ state: "detached" });

    const server = ((await (await gw.admin("/api/mcp/virtual-servers")).json()) as { virtual_servers: Array<{ access: { virtual_key_ids: string[]; role_ids: number[]; user_ids: string[] } }> }).virtual_servers[0]!;
    expect(server.access).toMatchObject({ role_ids: [viewer.id], user_ids: [dana] });
    expect(server.access.virtual_key_ids).toHaveLength(2);
    await page().reload();
    await card.getByText("2 virtual keys, 1 role, 1 user").waitFor();
    await card.getByRole("button", { name: "Edit team-a" }).click();
    await form.getByLabel("Role Viewer").waitFor();
    expect(await form.getByLabel("Role Viewer").isChecked()).toBe(true);
    expect(await form.getByLabel("User dana").isChecked()).toBe(true);
    expect(await form.getByLabel("Role Developer").isChecked()).toBe(false);
    await form.getByRole("button", { name: "Close" }).click();
  });

  test("an HTTP API is added from its pasted OpenAPI document, its operations picked from the list, and its key stored", async () => {
    const document = {
      openapi: "3.1.0",
      info: { title: "Greeter", version: "1" },
      servers: [{ url: `http://127.0.0.1:${greeter.port}` }],
      components: { securitySchemes: { key: { type: "apiKey", in: "header", name: "x-key" } } },
      security: [{ key: [] }],
      paths: {
        "/greeting": { get: { operationId: "greet", summary: "Greets someone", parameters: [{ name: "name", in: "query", schema: { type: "string" } }], responses: {} } },
        "/farewell": { get: { operationId: "farewell", responses: {} } },
      },
    };
    await page().goto(`${gw.url}/ui/mcp`);
    await page().getByRole("button", { name: "Add MCP server" }).click();
    const form = page().getByRole("dialog", { name: "Add an MCP server" });
    await form.getByLabel("Name").fill("greeter");
    await form.getByLabel("Transport").selectOption("openapi");
    await form.getByLabel("Or paste the document").fill("openapi: 2.0\npaths: {}");
    watched.expectFailure("POST", "/api/mcp/client", 400);
    await form.getByRole("button", { name: "Add server" }).click();
    await form.getByRole("alert").getByText("openapi must name version 3.x").waitFor();

    await form.getByLabel("Or paste the document").fill(JSON.stringify(document, null, 2));
    await form.getByRole("button", { name: "List operations" }).click();
    await form.getByRole("checkbox", { name: "greet · GET /greeting · Greets someone" }).check();
    expect(await form.getByRole("checkbox", { name: /^farewell/ }).isChecked()).toBe(false);
    expect(await form.getByLabel("Operations to include").inputValue()).toBe("greet");
    await form.getByLabel("Credentials").fill("key=greeter-secret");
    await form.getByLabel("Tools to expose").fill("*");
    await form.getByRole("button", { name: "Add server" }).click();

    const card = page().getByRole("region", { name: "MCP server greeter" });
    await card.getByText("document given inline").waitFor();
    const tools = card.getByRole("table", { name: "Tools of greeter" });
    await tools.getByRole("row", { name: /greet.*Greets someone \(GET \/greeting\)/ }).waitFor();
    expect(await tools.getByRole("cell", { name: "farewell", exact: true }).count()).toBe(0);
    const greet = async (name: string) => {
      const executed = await fetch(`${gw.url}/v1/mcp/tool/execute`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ id: "call_3", type: "function", function: { name: "greeter-greet", arguments: JSON.stringify({ name }) } }),
      });
      return ((await executed.json()) as { content: string }).content;
    };
    expect(await greet("Ada")).toBe("Hello, Ada");

    await card.getByRole("button", { name: "Edit greeter" }).click();
    const edit = page().getByRole("dialog", { name: "Edit MCP server greeter" });
    expect(await edit.getByLabel("Credentials").inputValue()).not.toContain("greeter-secret");
    await edit.getByLabel("Operations to include").fill("greet, farewell");
    await edit.getByRole("button", { name: "Save server" }).click();
    await tools.getByRole("cell", { name: "farewell", exact: true }).waitFor();
    // The key came back redacted into the form and was saved as it was: the stored one is kept.
    expect(await greet("Grace")).toBe("Hello, Grace");
    expect(await seriousViolations(page())).toEqual([]);
  });

  test("no page error and no request failed that the user did not cause", () => {
    expect(watched.problems()).toEqual([]);
  });
});
