import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type ClientCapabilities,
  CreateMessageRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  type Progress,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { eventually } from "../support/eventually";
import type { TestGateway } from "../support/gateway";
import { type McpSessionServer, startMcpSessionServer } from "../support/mcp-session-server";
import { createMcpClient, startMcpGateway } from "./support";

let gw: TestGateway;
let desk: McpSessionServer;
const clients: Client[] = [];

async function connect(path = "/mcp", capabilities: ClientCapabilities = {}): Promise<Client> {
  const client = new Client({ name: "relay-test", version: "1.0.0" }, { capabilities });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}${path}`)));
  clients.push(client);
  return client;
}

const textOf = (result: Record<string, unknown>) => (result.content as Array<{ type: string; text: string }>).map((part) => part.text).join("");

interface LogRow {
  tool_name: string;
  status: string;
  error_message: string | null;
  notifications: { progress: number; messages: number; cancelled: boolean } | null;
}
const mcpLogs = async () => ((await (await gw.admin("/api/mcp-logs")).json()) as { logs: LogRow[] }).logs;

beforeAll(async () => {
  desk = startMcpSessionServer();
  gw = await startMcpGateway({ mcp: { tool_execution_timeout_seconds: 0.4, tool_execution_max_timeout_seconds: 1.2 } });
  await createMcpClient(gw, { name: "desk", connection_type: "http", connection_string: desk.url, tools_to_execute: ["*"] });
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await gw.close();
  await desk.stop();
});

describe("during a call through /mcp", () => {
  test("progress and log notifications arrive while a tool works; _meta goes up; progress keeps a call alive past the timeout", async () => {
    const client = await connect();
    const logs: string[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void logs.push(String(notification.params.data)));
    const progress: Progress[] = [];
    // 8 steps of 100 ms: twice the 0.4 s timeout, which each progress notification starts again.
    const result = await client.callTool({ name: "desk-slow", arguments: { steps: 8, interval_ms: 100, label: "long" }, _meta: { "example.com/trace": "t-1" } }, undefined, { onprogress: (update) => progress.push(update), timeout: 5_000 });
    expect(textOf(result)).toBe("done in 8 steps");
    expect(result.structuredContent).toEqual({ steps: 8 });
    expect(progress.map((update) => update.progress)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(logs).toEqual(["step 1", "step 2", "step 3", "step 4", "step 5", "step 6", "step 7", "step 8"]);
    expect(desk.metas.at(-1)).toMatchObject({ "example.com/trace": "t-1" });
    const row = await eventually(mcpLogs, (rows) => rows.some((entry) => entry.notifications?.progress === 8));
    expect(row.find((entry) => entry.notifications?.progress === 8)).toMatchObject({ status: "success", notifications: { progress: 8, messages: 8, cancelled: false } });
  });

  test("progress does not extend a call past tool_execution_max_timeout_seconds", async () => {
    const client = await connect();
    const result = await client.callTool({ name: "desk-slow", arguments: { steps: 30, interval_ms: 100, label: "too-long" } }, undefined, { timeout: 10_000 });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("did not answer in time");
  });

  test("a cancelled call stops upstream, and the MCP log says so", async () => {
    const client = await connect();
    const aborter = new AbortController();
    const started = Promise.withResolvers<void>();
    const call = client.callTool({ name: "desk-slow", arguments: { steps: 50, interval_ms: 40, label: "cancel-me" } }, undefined, { signal: aborter.signal, onprogress: () => started.resolve() });
    await started.promise;
    aborter.abort("the user changed their mind");
    await expect(call).rejects.toThrow();
    expect(await eventually(async () => desk.cancelled, (labels) => labels.includes("cancel-me"))).toContain("cancel-me");
    const rows = await eventually(mcpLogs, (entries) => entries.some((entry) => entry.notifications?.cancelled === true));
    expect(rows.find((entry) => entry.notifications?.cancelled === true)).toMatchObject({ status: "error", error_message: "cancelled by the caller" });
  });

  test("an upstream's sampling request reaches the caller and its answer goes back; sampling is declared upstream only for a caller that has it", async () => {
    const client = await connect("/mcp", { sampling: {} });
    const asked: string[] = [];
    client.setRequestHandler(CreateMessageRequestSchema, (request) => {
      const content = request.params.messages[0]!.content;
      asked.push("text" in content ? String(content.text) : "");
      return { model: "caller-model", role: "assistant", content: { type: "text", text: "forty-two" } };
    });
    const result = await client.callTool({ name: "desk-ask_model", arguments: { question: "What is six times seven?" } });
    expect(textOf(result)).toBe("the model said: forty-two");
    expect(asked).toEqual(["What is six times seven?"]);
    expect(desk.sessionCapabilities.some((capabilities) => capabilities.sampling !== undefined)).toBe(true);
    expect(desk.sessionCapabilities[0]).toEqual({});
  });

  test("roots: an upstream's roots/list reaches the caller, and the caller's roots list_changed reaches the upstream", async () => {
    const client = await connect("/mcp", { roots: { listChanged: true } });
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: "file:///work", name: "work" }] }));
    expect(textOf(await client.callTool({ name: "desk-roots", arguments: {} }))).toBe("file:///work");
    const before = desk.rootsChanges.count;
    await client.sendRootsListChanged();
    expect(await eventually(async () => desk.rootsChanges.count, (count) => count > before)).toBe(before + 1);
  });

  test("resource links and embedded resources in a result point at the exposed URI, which reads through the gateway", async () => {
    const client = await connect();
    const result = await client.callTool({ name: "desk-link", arguments: {} });
    expect(result.content).toEqual([
      { type: "resource_link", uri: "desk+note://welcome", name: "welcome" },
      { type: "resource", resource: { uri: "desk+note://welcome", mimeType: "text/plain", text: "note welcome" } },
    ]);
    expect((await client.readResource({ uri: "desk+note://welcome" })).contents[0]).toMatchObject({ text: "note welcome" });
  });

  test("an upstream's protocol error keeps its code and says it once", async () => {
    const client = await connect();
    const failure = await client.callTool({ name: "desk-strict", arguments: {} }).catch((error: Error & { code?: number }) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as { code?: number }).code).toBe(-32602);
    expect((failure as Error).message).toBe("MCP error -32602: city is required");
  });
});

describe("live lists", () => {
  test("an upstream's tools/list_changed updates tools/list within a second and is passed on to connected callers", async () => {
    const client = await connect();
    await client.listTools();
    const changed = Promise.withResolvers<void>();
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed.resolve());
    desk.addTool("forecast");
    await Promise.race([changed.promise, Bun.sleep(1_000).then(() => Promise.reject(new Error("no list_changed within a second")))]);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("desk-forecast");
  });

  test("tool definitions keep every field, and long lists page by cursor", async () => {
    const paged = await startMcpGateway({ mcp: { list_page_size: 2 } });
    try {
      await createMcpClient(paged, { name: "desk", connection_type: "http", connection_string: desk.url, tools_to_execute: ["*"] });
      const client = new Client({ name: "pager", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${paged.url}/mcp`)));
      const first = await client.listTools();
      expect(first.tools).toHaveLength(2);
      expect(first.nextCursor).toBeString();
      const names = [...first.tools.map((tool) => tool.name)];
      let cursor = first.nextCursor;
      while (cursor) {
        const next = await client.listTools({ cursor });
        names.push(...next.tools.map((tool) => tool.name));
        cursor = next.nextCursor;
      }
      expect(names).toEqual(expect.arrayContaining(["desk-slow", "desk-ask_model", "desk-strict"]));
      expect(first.tools.find((tool) => tool.name === "desk-slow")).toMatchObject({
        title: "Slow work",
        annotations: { readOnlyHint: true, title: "Slow" },
        outputSchema: { type: "object", properties: { steps: { type: "number" } } },
        _meta: { "example.com/owner": "desk" },
      });
      await client.close();
    } finally {
      await paged.close();
    }
  });
});

describe("resources, prompts and logging", () => {
  test("/mcp names resources and prompts per client and maps them back", async () => {
    const client = await connect();
    expect((await client.listResources()).resources).toEqual([{ uri: "desk+note://welcome", name: "welcome", mimeType: "text/plain" }]);
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([{ uriTemplate: "desk+note://{name}", name: "note" }]);
    expect((await client.readResource({ uri: "desk+note://welcome" })).contents).toEqual([{ uri: "desk+note://welcome", mimeType: "text/plain", text: "note welcome" }]);
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(["desk-greet"]);
    expect((await client.getPrompt({ name: "desk-greet", arguments: { who: "Ada" } })).messages).toEqual([{ role: "user", content: { type: "text", text: "Say hello to Ada" } }]);
    await client.setLoggingLevel("warning");
    expect(desk.logLevels).toContain("warning");
    await expect(client.readResource({ uri: "note://welcome" })).rejects.toThrow(/no MCP client offers the resource/);
  });

  test("a subscribed resource's update reaches the subscriber under its exposed URI", async () => {
    const client = await connect();
    const updated = Promise.withResolvers<string>();
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => updated.resolve(notification.params.uri));
    await client.subscribeResource({ uri: "desk+note://welcome" });
    desk.updateResource("note://welcome");
    expect(await updated.promise).toBe("desk+note://welcome");
  });

  test("/mcp/{client} is the upstream under its own names, identity and capabilities", async () => {
    const client = await connect("/mcp/desk");
    expect(client.getServerVersion()).toEqual({ name: "desk", version: "2.0.0" });
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["slow", "ask_model", "strict"]));
    expect((await client.listResources()).resources.map((resource) => resource.uri)).toEqual(["note://welcome"]);
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(["greet"]);
    expect(textOf(await client.callTool({ name: "slow", arguments: { steps: 1 } }))).toBe("done in 1 steps");
  });
});

test("a client's GET shows the resources, templates and prompts it offers, kept up to date like its tools", async () => {
  type Listed = { clients: Array<{ name: string; resources: unknown[]; resource_templates: unknown[]; prompts: Array<{ name: string }> }> };
  const deskOf = async () => ((await (await gw.admin("/api/mcp/clients")).json()) as Listed).clients.find((client) => client.name === "desk")!;
  expect(await deskOf()).toMatchObject({
    resources: [{ uri: "note://welcome", name: "welcome", description: "", mime_type: "text/plain" }],
    resource_templates: [{ uri_template: "note://{name}", name: "note", description: "", mime_type: null }],
    prompts: [{ name: "greet", description: "Greets someone", arguments: [{ name: "who", description: "", required: true }] }],
  });
  desk.addPrompt("farewell");
  const after = await eventually(deskOf, (client) => client.prompts.length === 2, 1_000);
  expect(after.prompts.map((prompt) => prompt.name)).toEqual(["greet", "farewell"]);
});
