import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { bearer, call, createApiKey } from "../access/access-client";
import { expectGatewayError } from "../support/gateway-error";
import { closeNodes, SETUP_TOKEN, startGateway, startNodes, type TestGateway } from "../support/gateway";
import { loggedRequest } from "../support/logged-request";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { startMcpHttpServer } from "../support/mcp-http-server";
import { STANDARD_TOOLS, text } from "../support/mcp-tools";
import { createMcpClient, executeTool, toolContent } from "../mcp/support";

/**
 * GET /api/ws, the dashboard's notification WebSocket: once it says `ready`, every request log
 * stored after that comes down it as GET /api/logs lists it, filtered by the same parameters, from
 * whichever node wrote it.
 */

interface LogMessage {
  type: "log" | "mcp_log";
  operation: "create" | "update";
  payload: { id: string; model: string; status: string; metadata: Record<string, string>; [field: string]: unknown };
}

const OPERATOR = { "x-gateway-setup-token": SETUP_TOKEN };

/** A socket on /api/ws, open and subscribed: `next` answers its messages in order. */
async function openFeed(gw: TestGateway, query = "", headers: Record<string, string> = OPERATOR) {
  const socket = new WebSocket(`${gw.url.replace(/^http/, "ws")}/api/ws${query}`, { headers } as unknown as string[]);
  const messages: unknown[] = [];
  let closed: CloseEvent | undefined;
  let wake = () => {};
  socket.onmessage = (event) => {
    messages.push(JSON.parse(String(event.data)));
    wake();
  };
  socket.onclose = (event) => {
    closed = event;
    wake();
  };
  const next = async (): Promise<unknown> => {
    while (messages.length === 0) {
      if (closed) throw new Error(`the feed closed (${closed.code} ${closed.reason})`);
      await new Promise<void>((resolve) => (wake = resolve));
    }
    return messages.shift();
  };
  expect(await next()).toEqual({ type: "ready" });
  return { next: () => next() as Promise<LogMessage>, pending: () => messages.length, close: () => socket.close() };
}

let upstream: MockOpenAI;
let gw: TestGateway;
let client: OpenAI;

const providers = () => ({ openai: { keys: [{ id: "oa", value: "sk-live-feed-upstream" }], network_config: { base_url: upstream.baseUrl } } });
const clientOf = (gateway: TestGateway, testCase?: string) =>
  new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "unused", maxRetries: 0, defaultHeaders: testCase ? { "x-gw-metadata-case": testCase } : {} });
const ask = (sdk: OpenAI, content: string) => sdk.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }] });

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({ edition: "enterprise", providers: providers() });
  client = clientOf(gw);
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

describe("the live feed of request logs", () => {
  test("sends each request's log once stored, as GET /api/logs lists it, and nothing stored before it was ready", async () => {
    await ask(clientOf(gw, "live-before"), "before the feed");
    await loggedRequest(gw, "live-before");
    const feed = await openFeed(gw);
    try {
      const asked = [];
      for (const content of ["one", "two", "three"]) asked.push(await ask(clientOf(gw, "live-sent"), content));
      const received = [await feed.next(), await feed.next(), await feed.next()];
      expect(received.map((message) => [message.type, message.operation])).toEqual(Array(3).fill(["log", "create"]));
      const listed = (await (await gw.admin("/api/logs?metadata_case=live-sent&order=asc")).json()) as { logs: unknown[] };
      expect(received.map((message) => message.payload)).toEqual(listed.logs as LogMessage["payload"][]);
      expect(received.every((message) => message.payload.status === "success" && message.payload.model === "gpt-4o-mini")).toBe(true);
      expect(received.some((message) => message.payload.metadata.case === "live-before")).toBe(false);
    } finally {
      feed.close();
    }
  });

  test("takes the filters of GET /api/logs: only the matching logs come", async () => {
    const feed = await openFeed(gw, "?metadata_case=live-filtered&status=success");
    try {
      await ask(client, "not tagged");
      await ask(clientOf(gw, "live-other"), "tagged otherwise");
      const tagged = await ask(clientOf(gw, "live-filtered"), "tagged for the feed");
      // Logs come in the order they were stored, so one let through before would come first.
      const first = await feed.next();
      expect(first.payload.metadata).toEqual({ case: "live-filtered" });
      expect((await (await gw.admin(`/api/logs/${first.payload.id}`)).json()) as object).toMatchObject({ response_content: tagged.choices[0]!.message.content });
    } finally {
      feed.close();
    }
  });

  test("sends what another node of the deployment stored", async () => {
    const [first, second] = await startNodes({ providers: providers() });
    try {
      const feed = await openFeed(second);
      await ask(clientOf(first, "live-other-node"), "through the first node");
      expect((await feed.next()).payload.metadata).toEqual({ case: "live-other-node" });
      feed.close();
    } finally {
      await closeNodes([first, second]);
    }
  });
});

describe("who may open it, and how", () => {
  const upgrade = { upgrade: "websocket", connection: "Upgrade", "sec-websocket-key": btoa("0123456789abcdef"), "sec-websocket-version": "13" };

  test("without credentials it is a 401, without Logs:View a 403; with Logs:View it opens", async () => {
    await expectGatewayError(await call(gw, "/api/ws", { headers: upgrade }), 401);
    const denied = await createApiKey(gw, "live-denied", ["MCPLogs:View"]);
    await expectGatewayError(await call(gw, "/api/ws", { headers: { ...upgrade, ...bearer(denied) } }), 403);
    const allowed = await createApiKey(gw, "live-allowed", ["Logs:View"]);
    const feed = await openFeed(gw, "", bearer(allowed));
    feed.close();
  });

  test("a plain GET is a 426 saying it is a WebSocket; a malformed filter is a 400 naming it", async () => {
    await expectGatewayError(await gw.admin("/api/ws"), 426);
    await expectGatewayError(await gw.admin("/api/ws?min_latency=fast", { headers: upgrade }), 400, { param: "min_latency" });
  });
});

describe("MCP tool calls on the live feed", () => {
  test("a call is sent as it starts and as it ends, to a caller who may read MCP logs and to no other", async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const desk = startMcpHttpServer({ tools: { ...STANDARD_TOOLS, slow: { description: "Answers once the test lets it", run: async () => (await held, text("done")) } } });
    const mcpGateway = await startGateway({ edition: "enterprise", providers: providers() });
    try {
      await createMcpClient(mcpGateway, { name: "desk", connection_type: "http", connection_string: desk.url, tools_to_execute: ["*"] });
      const logsOnly = await openFeed(mcpGateway, "", bearer(await createApiKey(mcpGateway, "logs-only", ["Logs:View"])));
      const both = await openFeed(mcpGateway, "", bearer(await createApiKey(mcpGateway, "logs-and-mcp", ["Logs:View", "MCPLogs:View"])));
      const running = executeTool(mcpGateway, "desk-slow");
      const started = await both.next();
      expect(started).toMatchObject({ type: "mcp_log", operation: "create", payload: { tool_name: "slow", server_label: "desk", status: "processing" } });
      release();
      expect(await toolContent(await running)).toBe("done");
      expect(await both.next()).toMatchObject({ type: "mcp_log", operation: "update", payload: { id: started.payload.id, status: "success", result: "done" } });
      // Sent in order: had the call come to the other socket, it would come before this request's log.
      await ask(clientOf(mcpGateway), "after the tool call");
      expect(await logsOnly.next()).toMatchObject({ type: "log", payload: { model: "gpt-4o-mini" } });
      logsOnly.close();
      both.close();
    } finally {
      await mcpGateway.close();
      await desk.stop();
    }
  });
});
