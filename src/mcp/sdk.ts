/**
 * The MCP SDK, loaded on first use: it costs 10-15 MB resident (mostly the zod schemas of its
 * types module), which a gateway that never speaks MCP should not pay. Every runtime value of
 * the SDK comes through here; elsewhere only `import type`.
 */

async function importClientSdk() {
  const [client, sse, stdio, streamableHttp, auth, types] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/sse.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/client/auth.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]);
  return {
    Client: client.Client,
    SSEClientTransport: sse.SSEClientTransport,
    SseError: sse.SseError,
    StdioClientTransport: stdio.StdioClientTransport,
    getDefaultEnvironment: stdio.getDefaultEnvironment,
    StreamableHTTPClientTransport: streamableHttp.StreamableHTTPClientTransport,
    StreamableHTTPError: streamableHttp.StreamableHTTPError,
    UnauthorizedError: auth.UnauthorizedError,
    auth: auth.auth,
    McpError: types.McpError,
    ErrorCode: types.ErrorCode,
    ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
    ResourceListChangedNotificationSchema: types.ResourceListChangedNotificationSchema,
    PromptListChangedNotificationSchema: types.PromptListChangedNotificationSchema,
    ResourceUpdatedNotificationSchema: types.ResourceUpdatedNotificationSchema,
    LoggingMessageNotificationSchema: types.LoggingMessageNotificationSchema,
    CreateMessageRequestSchema: types.CreateMessageRequestSchema,
    ElicitRequestSchema: types.ElicitRequestSchema,
    ListRootsRequestSchema: types.ListRootsRequestSchema,
  };
}

async function importServerSdk() {
  const [server, transport, inMemory, types] = await Promise.all([
    import("@modelcontextprotocol/sdk/server/index.js"),
    import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
    import("@modelcontextprotocol/sdk/inMemory.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]);
  return {
    Server: server.Server,
    WebStandardStreamableHTTPServerTransport: transport.WebStandardStreamableHTTPServerTransport,
    InMemoryTransport: inMemory.InMemoryTransport,
    CallToolRequestSchema: types.CallToolRequestSchema,
    ListToolsRequestSchema: types.ListToolsRequestSchema,
    ListResourcesRequestSchema: types.ListResourcesRequestSchema,
    ListResourceTemplatesRequestSchema: types.ListResourceTemplatesRequestSchema,
    ReadResourceRequestSchema: types.ReadResourceRequestSchema,
    SubscribeRequestSchema: types.SubscribeRequestSchema,
    UnsubscribeRequestSchema: types.UnsubscribeRequestSchema,
    ListPromptsRequestSchema: types.ListPromptsRequestSchema,
    GetPromptRequestSchema: types.GetPromptRequestSchema,
    CompleteRequestSchema: types.CompleteRequestSchema,
    SetLevelRequestSchema: types.SetLevelRequestSchema,
    RootsListChangedNotificationSchema: types.RootsListChangedNotificationSchema,
    isInitializeRequest: types.isInitializeRequest,
    ElicitResultSchema: types.ElicitResultSchema,
    CreateMessageResultSchema: types.CreateMessageResultSchema,
    CreateMessageResultWithToolsSchema: types.CreateMessageResultWithToolsSchema,
    ListRootsResultSchema: types.ListRootsResultSchema,
    McpError: types.McpError,
    ErrorCode: types.ErrorCode,
  };
}

export type McpClientSdk = Awaited<ReturnType<typeof importClientSdk>>;
export type McpServerSdk = Awaited<ReturnType<typeof importServerSdk>>;

/** Imports once; the value stays readable synchronously afterwards. */
function loadedOnce<T>(importModules: () => Promise<T>) {
  let loading: Promise<T> | undefined;
  let loaded: T | undefined;
  return {
    load: () => (loading ??= importModules().then((modules) => (loaded = modules))),
    ifLoaded: () => loaded,
  };
}

const clientSdk = loadedOnce(importClientSdk);
const serverSdk = loadedOnce(importServerSdk);

/** The client side: `Client`, its transports and the errors they throw. */
export const loadMcpClientSdk = clientSdk.load;

/** The server side: `Server`, the Streamable HTTP transport and the request schemas. */
export const loadMcpServerSdk = serverSdk.load;

/**
 * The client side if something has loaded it, for telling the SDK's errors apart synchronously:
 * while it is not loaded, no error can have come from it.
 */
export const loadedMcpClientSdk = clientSdk.ifLoaded;
