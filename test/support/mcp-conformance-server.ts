import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { type EventStore, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  CompleteRequestSchema,
  CreateMessageResultSchema,
  type ElicitRequestFormParams,
  ElicitResultSchema,
  ErrorCode,
  GetPromptRequestSchema,
  type GetPromptResult,
  type JSONRPCMessage,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ListRootsResultSchema,
  type LoggingLevel,
  LoggingLevelSchema,
  McpError,
  type Prompt,
  ReadResourceRequestSchema,
  type ReadResourceResult,
  type Resource,
  type ServerNotification,
  type ServerRequest,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  type Tool,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

/** A 1×1 blue PNG. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGNQSLgAAAH0AVEVkbhGAAAAAElFTkSuQmCC";
/** Eight samples of 8 kHz silence, as a WAV file. */
const WAV = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";
/** What the SSE streams tell a client to wait before it reconnects. */
const RETRY_MS = 100;

const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

interface ToolCall {
  args: Record<string, unknown>;
  server: Server;
  extra: Extra;
  /** Sends a log message on the call's own stream, unless the session asked for a higher level. */
  log(level: LoggingLevel, data: string): Promise<void>;
}

interface ConformanceTool extends Omit<Tool, "inputSchema"> {
  inputSchema?: Tool["inputSchema"];
  run(call: ToolCall): CallToolResult | Promise<CallToolResult>;
}

const SEVERITY = LoggingLevelSchema.options;

async function elicit(call: ToolCall, params: ElicitRequestFormParams): Promise<CallToolResult> {
  if (!call.server.getClientCapabilities()?.elicitation) return { isError: true, content: [{ type: "text", text: "the client offers no elicitation" }] };
  const answer = await call.extra.sendRequest({ method: "elicitation/create", params }, ElicitResultSchema);
  return text(`Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`);
}

const noArguments = { type: "object" as const, properties: {} };

/** Where the gateway takes the key it offers an upstream's request under, in a 2026-07-28 `input_required` result. */
const INPUT_KEY = "ai-gateway/inputKey";

/** Asks the client for a form's values, naming the key the request goes under. */
const askForm = (extra: Extra, key: string, message: string, properties: Record<string, { type: "string" } | { type: "boolean" }>) =>
  extra.sendRequest(
    { method: "elicitation/create", params: { message, requestedSchema: { type: "object", properties, required: Object.keys(properties) }, _meta: { [INPUT_KEY]: key } } },
    ElicitResultSchema,
  );
const askModel = (extra: Extra, key: string, prompt: string, maxTokens: number) =>
  extra.sendRequest(
    { method: "sampling/createMessage", params: { messages: [{ role: "user", content: { type: "text", text: prompt } }], maxTokens, _meta: { [INPUT_KEY]: key } } },
    CreateMessageResultSchema,
  );
const askRoots = (extra: Extra, key: string) => extra.sendRequest({ method: "roots/list", params: { _meta: { [INPUT_KEY]: key } } }, ListRootsResultSchema);
const sampledText = (answer: { content: { type: string; text?: string } }) => (answer.content.type === "text" ? String(answer.content.text) : `(${answer.content.type})`);

/**
 * The tools the 2026-07-28 scenarios on multi round-trip requests call. Each asks the client the
 * 2025-11-25 way, with a request of its own during the call: through the gateway, a client of
 * 2026-07-28 gets them as `input_required` and answers in its retry.
 */
const INPUT_REQUIRED_TOOLS: ConformanceTool[] = [
  {
    name: "test_input_required_result_elicitation",
    description: "Asks the user's name, then greets them",
    run: async ({ extra }) => text(`Hello, ${String((await askForm(extra, "user_name", "What is your name?", { name: { type: "string" } })).content?.name)}!`),
  },
  {
    name: "test_input_required_result_sampling",
    description: "Asks the client's model for the capital of France",
    run: async ({ extra }) => text(`The model said: ${sampledText(await askModel(extra, "capital_question", "What is the capital of France?", 100))}`),
  },
  {
    name: "test_input_required_result_list_roots",
    description: "Asks the client's roots and names them",
    run: async ({ extra }) => text(`Roots: ${(await askRoots(extra, "client_roots")).roots.map((root) => root.uri).join(", ")}`),
  },
  {
    name: "test_input_required_result_request_state",
    description: "Asks for a confirmation",
    run: async ({ extra }) => text(`state-ok: confirmed=${String((await askForm(extra, "confirm", "Please confirm", { ok: { type: "boolean" } })).content?.ok)}`),
  },
  {
    name: "test_input_required_result_tampered_state",
    description: "Asks for a confirmation",
    run: async ({ extra }) => text(`confirmed=${String((await askForm(extra, "confirm", "Please confirm", { ok: { type: "boolean" } })).content?.ok)}`),
  },
  {
    name: "test_input_required_result_multiple_inputs",
    description: "Asks the user's name, the client's model for a greeting and the client's roots, all at once",
    run: async ({ extra }) => {
      const [name, greeting, roots] = await Promise.all([
        askForm(extra, "user_name", "What is your name?", { name: { type: "string" } }),
        askModel(extra, "greeting", "Generate a greeting", 50),
        askRoots(extra, "client_roots"),
      ]);
      return text(`${sampledText(greeting)} ${String(name.content?.name)}, in ${roots.roots.length} root(s)`);
    },
  },
  {
    name: "test_input_required_result_multi_round",
    description: "Asks the user's name, then their favourite colour",
    run: async ({ extra }) => {
      const name = await askForm(extra, "step1", "Step 1: What is your name?", { name: { type: "string" } });
      const colour = await askForm(extra, "step2", "Step 2: What is your favorite color?", { color: { type: "string" } });
      return text(`${String(name.content?.name)} likes ${String(colour.content?.color)}`);
    },
  },
  {
    name: "test_input_required_result_capabilities",
    description: "Asks the client's model, and the user, each only if the client offers it",
    run: async ({ server, extra }) => {
      const offered = server.getClientCapabilities() ?? {};
      const [sampled, elicited] = await Promise.all([
        offered.sampling ? askModel(extra, "sampled", "Say hello", 20) : undefined,
        offered.elicitation ? askForm(extra, "elicited", "Say hello", { greeting: { type: "string" } }) : undefined,
      ]);
      return text(`sampled=${sampled ? sampledText(sampled) : "-"} elicited=${elicited ? String(elicited.content?.greeting) : "-"}`);
    },
  },
  {
    name: "test_streaming_elicitation",
    description: "Asks the user for a confirmation during the call",
    run: async ({ extra }) => text(`confirmed=${String((await askForm(extra, "confirm", "Please confirm", { ok: { type: "boolean" } })).content?.ok)}`),
  },
  {
    name: "test_missing_capability",
    description: "Needs the client's model: without sampling, refuses with MissingRequiredClientCapabilityError",
    run: async ({ server, extra }) => {
      if (!server.getClientCapabilities()?.sampling) throw new McpError(-32021, "this tool needs the client's sampling capability", { requiredCapabilities: { sampling: {} } });
      return text(sampledText(await askModel(extra, "answer", "Say hello", 20)));
    },
  },
];

const TOOLS: ConformanceTool[] = [
  { name: "test_simple_text", description: "Answers with one line of text", run: () => text("A plain line of text from the conformance server.") },
  { name: "test_image_content", description: "Answers with a PNG image", run: () => ({ content: [{ type: "image", data: PNG, mimeType: "image/png" }] }) },
  { name: "test_audio_content", description: "Answers with a WAV recording", run: () => ({ content: [{ type: "audio", data: WAV, mimeType: "audio/wav" }] }) },
  {
    name: "test_embedded_resource",
    description: "Answers with a resource embedded in the result",
    run: () => ({ content: [{ type: "resource", resource: { uri: "test://embedded-resource", mimeType: "text/plain", text: "A resource carried inside a tool result." } }] }),
  },
  {
    name: "test_multiple_content_types",
    description: "Answers with text, an image and an embedded resource at once",
    run: () => ({
      content: [
        { type: "text", text: "Three kinds of content follow." },
        { type: "image", data: PNG, mimeType: "image/png" },
        { type: "resource", resource: { uri: "test://mixed-content-resource", mimeType: "application/json", text: JSON.stringify({ kinds: 3 }) } },
      ],
    }),
  },
  {
    name: "test_resource_link",
    description: "Answers with a link to a resource the client may read",
    run: () => ({ content: [{ type: "resource_link", uri: "test://static-text", name: "static-text", mimeType: "text/plain" }] }),
  },
  {
    name: "test_structured_output",
    description: "Adds two numbers and answers with structured content matching its output schema",
    inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
    outputSchema: { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] },
    run: ({ args }) => {
      const sum = Number(args.a) + Number(args.b);
      return { content: [{ type: "text", text: JSON.stringify({ sum }) }], structuredContent: { sum } };
    },
  },
  {
    name: "test_tool_with_logging",
    description: "Logs three messages while it works",
    run: async ({ log }) => {
      await log("info", "Started the work");
      await pause(50);
      await log("info", "Halfway through the work");
      await pause(50);
      await log("info", "Finished the work");
      return text("The work is done; three messages were logged.");
    },
  },
  {
    name: "test_tool_with_progress",
    description: "Reports its progress from 0 to 100 when the caller asks for progress",
    run: async ({ extra }) => {
      const progressToken = extra._meta?.progressToken;
      for (const progress of [0, 50, 100]) {
        if (progress > 0) await pause(50);
        if (progressToken !== undefined) await extra.sendNotification({ method: "notifications/progress", params: { progressToken, progress, total: 100 } });
      }
      return text("Progress went from 0 to 100.");
    },
  },
  {
    name: "test_logging_tool",
    description: "Logs one message: a caller that asked for no log level must not see it",
    run: async ({ log }) => {
      await log("info", "A message for callers that asked for log messages");
      return text("One message was logged.");
    },
  },
  {
    name: "test_trigger_tool_change",
    description: "Says the tool list changed",
    run: async ({ server }) => {
      await server.sendToolListChanged();
      return text("The tool list changed.");
    },
  },
  {
    name: "test_trigger_prompt_change",
    description: "Says the prompt list changed",
    run: async ({ server }) => {
      await server.sendPromptListChanged();
      return text("The prompt list changed.");
    },
  },
  {
    name: "test_trigger_resource_update",
    description: "Says test://watched-resource changed",
    run: async ({ server }) => {
      await server.sendResourceUpdated({ uri: "test://watched-resource" });
      return text("test://watched-resource changed.");
    },
  },
  {
    name: "test_header_param",
    description: "Says its region, an argument clients of 2026-07-28 mirror in the Mcp-Param-Region header",
    inputSchema: { type: "object", properties: { region: { type: "string", "x-mcp-header": "Region" } }, required: ["region"] },
    run: ({ args }) => text(`Region: ${String(args.region)}`),
  },
  { name: "test_error_handling", description: "Always fails, as a tool error", run: () => ({ isError: true, content: [{ type: "text", text: "This tool fails on every call, on purpose." }] }) },
  {
    name: "test_sampling",
    description: "Asks the client's model to answer a prompt",
    inputSchema: { type: "object", properties: { prompt: { type: "string" } }, required: ["prompt"] },
    run: async ({ args, server, extra }) => {
      if (!server.getClientCapabilities()?.sampling) return { isError: true, content: [{ type: "text", text: "the client offers no sampling" }] };
      const answer = await extra.sendRequest(
        { method: "sampling/createMessage", params: { messages: [{ role: "user", content: { type: "text", text: String(args.prompt) } }], maxTokens: 100 } },
        CreateMessageResultSchema,
      );
      return text(`LLM response: ${answer.content.type === "text" ? answer.content.text : `(${answer.content.type})`}`);
    },
  },
  {
    name: "test_elicitation",
    description: "Asks the user for a username and an email address",
    inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
    run: (call) =>
      elicit(call, {
        message: String(call.args.message),
        requestedSchema: {
          type: "object",
          properties: { username: { type: "string", description: "Your username" }, email: { type: "string", description: "Your email address" } },
          required: ["username", "email"],
        },
      }),
  },
  {
    name: "test_elicitation_sep1034_defaults",
    description: "Asks the user for values of every primitive type, each with a default",
    run: (call) =>
      elicit(call, {
        message: "Check these values",
        requestedSchema: {
          type: "object",
          properties: {
            name: { type: "string", default: "John Doe" },
            age: { type: "integer", default: 30 },
            score: { type: "number", default: 95.5 },
            status: { type: "string", enum: ["active", "inactive", "pending"], default: "active" },
            verified: { type: "boolean", default: true },
          },
        },
      }),
  },
  {
    name: "test_elicitation_sep1330_enums",
    description: "Asks the user to choose, with each form of enum",
    run: (call) =>
      elicit(call, {
        message: "Pick your options",
        requestedSchema: {
          type: "object",
          properties: {
            untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
            titledSingle: {
              type: "string",
              oneOf: [
                { const: "value1", title: "First Option" },
                { const: "value2", title: "Second Option" },
                { const: "value3", title: "Third Option" },
              ],
            },
            legacyEnum: { type: "string", enum: ["opt1", "opt2", "opt3"], enumNames: ["Option One", "Option Two", "Option Three"] },
            untitledMulti: { type: "array", items: { type: "string", enum: ["option1", "option2", "option3"] } },
            titledMulti: {
              type: "array",
              items: {
                anyOf: [
                  { const: "value1", title: "First Choice" },
                  { const: "value2", title: "Second Choice" },
                  { const: "value3", title: "Third Choice" },
                ],
              },
            },
          },
        },
      }),
  },
  {
    name: "json_schema_2020_12_tool",
    description: "Takes arguments described with JSON Schema 2020-12 keywords",
    inputSchema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      $defs: { address: { $anchor: "addressDef", type: "object", properties: { street: { type: "string" }, city: { type: "string" } } } },
      properties: { name: { type: "string" }, address: { $ref: "#/$defs/address" }, contactMethod: { type: "string", enum: ["phone", "email"] }, phone: { type: "string" }, email: { type: "string" } },
      allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
      if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
      then: { required: ["phone"] },
      else: { required: ["email"] },
      additionalProperties: false,
    },
    run: ({ args }) => text(`Received ${JSON.stringify(args)}`),
  },
  {
    name: "test_reconnection",
    description: "Closes its answer's stream before answering, so the client must reconnect to get the result",
    run: async ({ extra }) => {
      await pause(20);
      extra.closeSSEStream?.();
      await pause(RETRY_MS);
      return text("Answered after the client reconnected.");
    },
  },
  ...INPUT_REQUIRED_TOOLS,
];

const RESOURCES: Array<Resource & ReadResourceResult["contents"][number]> = [
  { uri: "test://static-text", name: "static-text", description: "A text resource that never changes", mimeType: "text/plain", text: "The text of a resource that never changes." },
  { uri: "test://static-binary", name: "static-binary", description: "A PNG image", mimeType: "image/png", blob: PNG },
  { uri: "test://watched-resource", name: "watched-resource", description: "A resource clients may subscribe to", mimeType: "text/plain", text: "Watch this space." },
];

const TEMPLATE = { uriTemplate: "test://template/{id}/data", name: "template-data", description: "JSON data for any id", mimeType: "application/json" };
const TEMPLATE_URI = /^test:\/\/template\/([^/]+)\/data$/;
/** Values offered for completion, by argument: the template's `id`, the arguments prompt's `arg1`. */
const SUGGESTIONS: Record<string, string[]> = { id: ["123", "456", "789"], arg1: ["paris", "park", "party"] };

const PROMPTS: Array<Prompt & { messages(args: Record<string, string>, extra: Extra): GetPromptResult["messages"] | Promise<GetPromptResult["messages"]> }> = [
  { name: "test_simple_prompt", description: "A prompt with no arguments", messages: () => [{ role: "user", content: { type: "text", text: "A prompt that takes no arguments." } }] },
  {
    name: "test_prompt_with_arguments",
    description: "A prompt built from two arguments",
    arguments: [
      { name: "arg1", description: "The first value", required: true },
      { name: "arg2", description: "The second value", required: true },
    ],
    messages: ({ arg1, arg2 }) => [{ role: "user", content: { type: "text", text: `Compare '${arg1}' with '${arg2}'.` } }],
  },
  {
    name: "test_prompt_with_embedded_resource",
    description: "A prompt carrying the resource it is about",
    arguments: [{ name: "resourceUri", description: "The URI of the resource to embed", required: true }],
    messages: ({ resourceUri }) => [
      { role: "user", content: { type: "resource", resource: { uri: String(resourceUri), mimeType: "text/plain", text: "The resource's text, embedded." } } },
      { role: "user", content: { type: "text", text: "Summarise the resource above." } },
    ],
  },
  {
    name: "test_prompt_with_image",
    description: "A prompt carrying an image",
    messages: () => [
      { role: "user", content: { type: "image", data: PNG, mimeType: "image/png" } },
      { role: "user", content: { type: "text", text: "Describe the image above." } },
    ],
  },
  {
    name: "test_input_required_result_prompt",
    description: "A prompt that asks the user for its context first",
    messages: async (_args, extra) => {
      const answer = await askForm(extra, "user_context", "What context should the prompt use?", { context: { type: "string" } });
      return [{ role: "user", content: { type: "text", text: `Answer within this context: ${String(answer.content?.context)}` } }];
    },
  },
];

function readResource(uri: string): ReadResourceResult {
  const resource = RESOURCES.find((entry) => entry.uri === uri);
  if (resource) {
    const { name: _name, description: _description, ...content } = resource;
    return { contents: [content] };
  }
  const id = TEMPLATE_URI.exec(uri)?.[1];
  if (id) return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify({ id, data: `Data for ID: ${id}` }) }] };
  throw new McpError(ErrorCode.InvalidParams, `no resource ${uri}`);
}

/** Remembers what each SSE stream sent (its latest 1000 events), so a client that reconnects with Last-Event-ID gets the rest. */
function memoryEventStore(): EventStore {
  const events: Array<{ id: string; streamId: string; message: JSONRPCMessage }> = [];
  let next = 0;
  return {
    async storeEvent(streamId, message) {
      const id = `${streamId}:${next++}`;
      events.push({ id, streamId, message });
      if (events.length > 1000) events.shift();
      return id;
    },
    async getStreamIdForEventId(eventId) {
      return events.find((event) => event.id === eventId)?.streamId;
    },
    async replayEventsAfter(lastEventId, { send }) {
      const index = events.findIndex((event) => event.id === lastEventId);
      if (index < 0) throw new Error(`unknown event ${lastEventId}`);
      const { streamId } = events[index]!;
      for (const event of events.slice(index + 1)) if (event.streamId === streamId) await send(event.id, event.message);
      return streamId;
    },
  };
}

function createServer(): Server {
  let logLevel: LoggingLevel = "debug";
  const server = new Server(
    { name: "conformance-server", version: "1.0.0" },
    { capabilities: { tools: { listChanged: true }, resources: { subscribe: true }, prompts: { listChanged: true }, logging: {}, completions: {} }, instructions: "Every feature the MCP conformance suite checks of a server." },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS.map(({ run: _run, inputSchema = noArguments, ...tool }) => ({ ...tool, inputSchema })) }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const tool = TOOLS.find((entry) => entry.name === request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `no tool ${request.params.name}`);
    return tool.run({
      args: request.params.arguments ?? {},
      server,
      extra,
      async log(level, data) {
        if (SEVERITY.indexOf(level) >= SEVERITY.indexOf(logLevel)) await extra.sendNotification({ method: "notifications/message", params: { level, logger: "conformance", data } });
      },
    });
  });
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: RESOURCES.map(({ uri, name, description, mimeType }) => ({ uri, name, description, mimeType })) }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [TEMPLATE] }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => readResource(request.params.uri));
  server.setRequestHandler(SubscribeRequestSchema, (request) => {
    readResource(request.params.uri); // refuses a URI that names no resource
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, () => ({}));
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: PROMPTS.map(({ messages: _messages, ...prompt }) => prompt) }));
  server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
    const prompt = PROMPTS.find((entry) => entry.name === request.params.name);
    if (!prompt) throw new McpError(ErrorCode.InvalidParams, `no prompt ${request.params.name}`);
    const missing = (prompt.arguments ?? []).filter((argument) => argument.required && request.params.arguments?.[argument.name] === undefined);
    if (missing.length > 0) throw new McpError(ErrorCode.InvalidParams, `missing arguments: ${missing.map((argument) => argument.name).join(", ")}`);
    return { description: prompt.description, messages: await prompt.messages(request.params.arguments ?? {}, extra) };
  });
  server.setRequestHandler(CompleteRequestSchema, (request) => {
    const { name, value: typed } = request.params.argument;
    const values = (SUGGESTIONS[name] ?? []).filter((value) => value.startsWith(typed));
    return { completion: { values, total: values.length, hasMore: false } };
  });
  server.setRequestHandler(SetLevelRequestSchema, (request) => {
    logLevel = request.params.level;
    return {};
  });
  return server;
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);
const isLoopback = (url: string) => URL.canParse(url) && LOOPBACK.has(new URL(url).hostname);

export interface McpConformanceServer {
  /** The MCP endpoint (`.../mcp`). */
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * An MCP server with every feature the official conformance suite checks of a server, under the
 * names its scenarios call: tools answering each content type, failing, logging, reporting
 * progress, asking for sampling and elicitation, and closing their stream mid-call; resources, a
 * template, subscriptions, prompts, completions and log levels. Sessions over Streamable HTTP,
 * resumable streams, and requests refused unless Host (and Origin, when sent) are loopback names.
 */
export function startMcpConformanceServer(): McpConformanceServer {
  const sessions = new Map<string, { server: Server; transport: WebStandardStreamableHTTPServerTransport }>();

  async function handle(request: Request): Promise<Response> {
    const origin = request.headers.get("origin");
    if (!isLoopback(`http://${request.headers.get("host")}`) || (origin !== null && !isLoopback(origin))) {
      return Response.json({ jsonrpc: "2.0", error: { code: -32000, message: "Host or Origin is not a loopback name" }, id: null }, { status: 403 });
    }
    const sessionId = request.headers.get("mcp-session-id");
    const existing = sessionId ? sessions.get(sessionId) : undefined;
    if (existing) return existing.transport.handleRequest(request);
    if (sessionId) return Response.json({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }, { status: 404 });
    const server = createServer();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      eventStore: memoryEventStore(),
      retryInterval: RETRY_MS,
      onsessioninitialized: (id) => void sessions.set(id, { server, transport }),
      onsessionclosed: (id) => void sessions.delete(id),
    });
    await server.connect(transport);
    return transport.handleRequest(request);
  }

  const http = Bun.serve({ port: 0, hostname: "127.0.0.1", idleTimeout: 0, fetch: handle });
  return {
    url: `http://127.0.0.1:${http.port}/mcp`,
    async stop() {
      for (const { server } of sessions.values()) await server.close();
      await http.stop(true);
    },
  };
}
