import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { CallToolResult, Progress, RequestId, ServerCapabilities, ServerNotification } from "@modelcontextprotocol/sdk/types.js";
import { GatewayError } from "../../http/errors";
import type { McpClientRegistry, RegisteredClient } from "../clients/registry";
import { allPages } from "../connection/upstream";
import { loadedMcpClientSdk, type McpServerSdk } from "../sdk";
import { mcpErrorText } from "../tools/call-result";
import { offeredTools } from "../tools/catalogue";
import type { CallContext, ToolExecutor } from "../tools/executor";
import { clientVisible } from "../tools/filter";
import { exposedPromptName, exposedUri, offersPrompt, offersResource, ownerOfName, page, withExposedUris } from "./names";
import { virtualIdentity } from "../virtual/identity";
import { isUiResource, uiResourceOwner } from "./ui-resources";
import type { SessionLinks } from "./session-links";
import { toolsNotSelectedNotice } from "../clients/tools-notice";
import { answersSearch, listedTools, searchTools } from "./tool-search";

const GATEWAY_INFO = { name: "ai-gateway", version: "1.0.0" };

const AGGREGATE_CAPABILITIES: ServerCapabilities = {
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  completions: {},
  logging: {},
};

export interface GatewayServerDeps {
  sdk: McpServerSdk;
  registry: McpClientRegistry;
  executor: ToolExecutor;
  pageSize: number;
}

/** What a session keeps between requests; a stateless request has none. */
export interface SessionState {
  links?: SessionLinks;
  /** Exposed URIs the caller subscribed to. */
  subscriptions: Set<string>;
  /** The latest request's caller and filter (the session's key is checked to be the same). */
  context: CallContext;
  /** The caller's tools/call requests under way, latest last: an upstream's request goes out related to one, on its stream. */
  callsUnderway: RequestId[];
  /** Sessions only: the tools `search_tools` found, listed from then on (a virtual server with tool search). */
  found?: Set<string>;
}

/** /mcp/{client} is that server: its name, version, instructions and capabilities, as far as the gateway proxies them. */
export function identityOf(deps: GatewayServerDeps, context: CallContext) {
  if (context.filter.virtual) return virtualIdentity(context.filter.virtual, AGGREGATE_CAPABILITIES);
  const bound = context.filter.bound === undefined ? undefined : deps.registry.byName(context.filter.bound)?.connection?.session();
  if (!bound) return { info: GATEWAY_INFO, capabilities: AGGREGATE_CAPABILITIES, instructions: undefined };
  const upstream = bound.getServerCapabilities() ?? {};
  const capabilities: ServerCapabilities = {
    ...(upstream.tools ? { tools: { listChanged: true } } : {}),
    ...(upstream.resources ? { resources: { subscribe: upstream.resources.subscribe === true, listChanged: true } } : {}),
    ...(upstream.prompts ? { prompts: { listChanged: true } } : {}),
    ...(upstream.completions ? { completions: {} } : {}),
    ...(upstream.logging ? { logging: {} } : {}),
  };
  return { info: bound.getServerVersion() ?? GATEWAY_INFO, capabilities, instructions: bound.getInstructions() };
}

/**
 * A JSON-RPC error as the SDK sends it: `code`, `message`, `data` of what a handler throws. Not an
 * McpError, whose message starts with its code, which the caller's SDK would write a second time.
 */
const rpcError = (code: number, message: string, data?: unknown) => Object.assign(new Error(message), { code, data });

/** An upstream's protocol error keeps its code and says it once; gateway refusals become the MCP error a server would give. */
function protocolError(sdk: McpServerSdk, error: unknown): Error {
  const clientSdk = loadedMcpClientSdk();
  const cause = error instanceof GatewayError ? error.cause : error;
  if (clientSdk && cause instanceof clientSdk.McpError) return rpcError(cause.code, mcpErrorText(cause), cause.data);
  if (error instanceof GatewayError && error.status < 500) return rpcError(sdk.ErrorCode.InvalidParams, error.message);
  return rpcError(sdk.ErrorCode.InternalError, error instanceof GatewayError ? error.message : "the upstream MCP server failed");
}

/** A refused or failed call: unknown and forbidden tools and the upstream's protocol errors are errors; the rest a tool result the model can read. */
function failedCall(sdk: McpServerSdk, error: unknown): CallToolResult {
  if (!(error instanceof GatewayError)) throw error;
  const clientSdk = loadedMcpClientSdk();
  if (error.status === 404 || error.status === 403 || (clientSdk && error.cause instanceof clientSdk.McpError)) throw protocolError(sdk, error);
  const authRequired = error.extra.mcp_auth_required;
  return { isError: true, content: [{ type: "text", text: error.message }], ...(authRequired ? { _meta: { mcp_auth_required: authRequired } } : {}) };
}

/**
 * The gateway as an MCP server for one session (or one stateless request): the tools, resources
 * and prompts of the upstreams this caller may see, named apart per client (or unchanged on
 * /mcp/{client}), each request passed to the upstream that owns the name.
 */
export function gatewayServer(deps: GatewayServerDeps, state: SessionState): { server: Server; capabilities: ServerCapabilities } {
  const { sdk, registry, executor, pageSize } = deps;
  // Read per request: a session's later requests re-authenticate and bring their own headers.
  const filterNow = () => state.context.filter;
  const identity = identityOf(deps, state.context);
  const server = new sdk.Server(identity.info, { capabilities: identity.capabilities, instructions: identity.instructions });
  const capabilities = identity.capabilities;

  const paged = <T>(items: T[], cursor: string | undefined) => {
    try {
      return page(items, cursor, pageSize);
    } catch {
      throw rpcError(sdk.ErrorCode.InvalidParams, "invalid cursor");
    }
  };
  const clientOf = async (entry: RegisteredClient): Promise<Client | undefined> => (await state.links?.linkFor(entry))?.client ?? entry.connection?.session();
  const visibleClients = () => registry.list().filter((entry) => clientVisible(filterNow(), entry.config));
  const owner = (exposed: string, separator: "-" | "+", what: string) => {
    const named = (separator === "+" && isUiResource(exposed) ? uiResourceOwner(offeredTools(registry, filterNow()), exposed) : undefined) ?? ownerOfName(filterNow(), exposed, separator);
    const entry = named && registry.byName(named.clientName);
    if (!named || !entry || !clientVisible(filterNow(), entry.config)) throw rpcError(sdk.ErrorCode.InvalidParams, `no MCP client offers ${what} '${exposed}'`);
    return { entry, name: named.name };
  };
  const upstream = async <T>(entry: RegisteredClient, run: (client: Client) => Promise<T>): Promise<T> => {
    const client = await clientOf(entry).catch((error) => {
      throw protocolError(sdk, error);
    });
    if (!client) throw rpcError(sdk.ErrorCode.InternalError, `MCP client '${entry.config.name}' is ${entry.connection?.state ?? "not connected"}`);
    try {
      return await run(client);
    } catch (error) {
      throw protocolError(sdk, error);
    }
  };
  /** From every visible upstream that has the capability; one that fails is left out (on /mcp/{client} its error is the answer). */
  const fromEach = async <T>(kind: "resources" | "prompts", list: (client: Client, entry: RegisteredClient) => Promise<T[]>): Promise<T[]> => {
    const lists = await Promise.all(
      visibleClients().map(async (entry) => {
        const client = await clientOf(entry).catch(() => undefined);
        if (!client?.getServerCapabilities()?.[kind]) return [];
        try {
          return await list(client, entry);
        } catch (error) {
          if (filterNow().bound !== undefined) throw protocolError(sdk, error);
          return [];
        }
      }),
    );
    return lists.flat();
  };

  if (capabilities.tools) {
    server.setRequestHandler(sdk.ListToolsRequestSchema, (request) => {
      const tools = listedTools(filterNow(), offeredTools(registry, filterNow()), state.found).map((tool) => ({ ...(tool.definition ?? { inputSchema: { type: "object" as const } }), name: tool.exposedName }));
      const { items, nextCursor } = paged(tools, request.params?.cursor);
      const notice = toolsNotSelectedNotice(visibleClients());
      return { tools: items, ...(nextCursor ? { nextCursor } : {}), ...(notice ? { _meta: { "ai-gateway/notice": notice } } : {}) };
    });
    server.setRequestHandler(sdk.CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
      if (answersSearch(filterNow(), request.params.name)) {
        const listChanged = () => void server.sendToolListChanged().catch(() => undefined);
        const args = request.params.arguments ?? {};
        return (await executor.answerHere(request.params.name, args, state.context, () => searchTools(filterNow(), offeredTools(registry, filterNow()), args, state.found, listChanged))) as CallToolResult;
      }
      const { progressToken, ...meta } = request.params._meta ?? {};
      const call = { id: String(extra.requestId), function: { name: request.params.name, arguments: JSON.stringify(request.params.arguments ?? {}) } };
      const relay = {
        meta: Object.keys(meta).length > 0 ? meta : undefined,
        onprogress: progressToken === undefined ? undefined : (progress: Progress) => void extra.sendNotification({ method: "notifications/progress", params: { ...progress, progressToken } }).catch(() => undefined),
        signal: extra.signal,
        notify: (notification: ServerNotification) => void extra.sendNotification(notification).catch(() => undefined),
        ownLink: state.links && (async (entry: RegisteredClient) => state.links!.linkFor(entry)),
      };
      state.callsUnderway.push(extra.requestId);
      try {
        const result = (await executor.execute(call, { ...state.context, relay })) as CallToolResult;
        const clientName = ownerOfName(filterNow(), request.params.name, "-")?.clientName;
        return clientName && Array.isArray(result.content) ? { ...result, content: result.content.map((block) => withExposedUris(filterNow(), clientName, block)) } : result;
      } catch (error) {
        return failedCall(sdk, error);
      } finally {
        state.callsUnderway.splice(state.callsUnderway.indexOf(extra.requestId), 1);
      }
    });
  }

  if (capabilities.resources) {
    server.setRequestHandler(sdk.ListResourcesRequestSchema, async (request) => {
      const resources = await fromEach("resources", async (client, entry) =>
        (await allPages(async (cursor) => {
          const result = await client.listResources(cursor ? { cursor } : undefined);
          return { items: result.resources, nextCursor: result.nextCursor };
        }))
          .filter((resource) => offersResource(filterNow(), entry.config.name, resource.uri))
          .map((resource) => ({ ...resource, uri: exposedUri(filterNow(), entry.config.name, resource.uri) })),
      );
      const { items, nextCursor } = paged(resources, request.params?.cursor);
      return { resources: items, ...(nextCursor ? { nextCursor } : {}) };
    });
    server.setRequestHandler(sdk.ListResourceTemplatesRequestSchema, async (request) => {
      const templates = await fromEach("resources", async (client, entry) =>
        (await allPages(async (cursor) => {
          const result = await client.listResourceTemplates(cursor ? { cursor } : undefined);
          return { items: result.resourceTemplates, nextCursor: result.nextCursor };
        }))
          .filter((template) => offersResource(filterNow(), entry.config.name, template.uriTemplate))
          .map((template) => ({ ...template, uriTemplate: exposedUri(filterNow(), entry.config.name, template.uriTemplate) })),
      );
      const { items, nextCursor } = paged(templates, request.params?.cursor);
      return { resourceTemplates: items, ...(nextCursor ? { nextCursor } : {}) };
    });
    server.setRequestHandler(sdk.ReadResourceRequestSchema, async (request) => {
      const { entry, name } = owner(request.params.uri, "+", "the resource");
      const result = await upstream(entry, (client) => client.readResource({ ...request.params, uri: name }));
      return { ...result, contents: result.contents.map((content) => ({ ...content, uri: exposedUri(filterNow(), entry.config.name, content.uri) })) };
    });
    if (capabilities.resources.subscribe) {
      server.setRequestHandler(sdk.SubscribeRequestSchema, async (request) => {
        const { entry, name } = owner(request.params.uri, "+", "the resource");
        await upstream(entry, (client) => client.subscribeResource({ ...request.params, uri: name }));
        state.subscriptions.add(request.params.uri);
        return {};
      });
      server.setRequestHandler(sdk.UnsubscribeRequestSchema, async (request) => {
        const { entry, name } = owner(request.params.uri, "+", "the resource");
        state.subscriptions.delete(request.params.uri);
        await upstream(entry, (client) => client.unsubscribeResource({ ...request.params, uri: name }));
        return {};
      });
    }
  }

  if (capabilities.prompts) {
    server.setRequestHandler(sdk.ListPromptsRequestSchema, async (request) => {
      const prompts = await fromEach("prompts", async (client, entry) =>
        (await allPages(async (cursor) => {
          const result = await client.listPrompts(cursor ? { cursor } : undefined);
          return { items: result.prompts, nextCursor: result.nextCursor };
        }))
          .filter((prompt) => offersPrompt(filterNow(), entry.config.name, prompt.name))
          .map((prompt) => ({ ...prompt, name: exposedPromptName(filterNow(), entry.config.name, prompt.name) })),
      );
      const { items, nextCursor } = paged(prompts, request.params?.cursor);
      return { prompts: items, ...(nextCursor ? { nextCursor } : {}) };
    });
    server.setRequestHandler(sdk.GetPromptRequestSchema, async (request) => {
      const { entry, name } = owner(request.params.name, "-", "the prompt");
      const result = await upstream(entry, (client) => client.getPrompt({ ...request.params, name }));
      return { ...result, messages: result.messages.map((message) => ({ ...message, content: withExposedUris(filterNow(), entry.config.name, message.content) })) };
    });
  }

  if (capabilities.completions) {
    server.setRequestHandler(sdk.CompleteRequestSchema, async (request) => {
      const { ref } = request.params;
      if (ref.type === "ref/prompt") {
        const { entry, name } = owner(ref.name, "-", "the prompt");
        return upstream(entry, (client) => client.complete({ ...request.params, ref: { ...ref, name } }));
      }
      const { entry, name } = owner(ref.uri, "+", "the resource template");
      return upstream(entry, (client) => client.complete({ ...request.params, ref: { ...ref, uri: name } }));
    });
  }

  if (capabilities.logging) {
    server.setRequestHandler(sdk.SetLevelRequestSchema, async (request) => {
      await Promise.all(
        visibleClients().map(async (entry) => {
          const client = await clientOf(entry).catch(() => undefined);
          if (!client?.getServerCapabilities()?.logging) return;
          await client.setLoggingLevel(request.params.level).catch((error) => {
            if (filterNow().bound !== undefined) throw protocolError(sdk, error);
          });
        }),
      );
      return {};
    });
  }
  server.setNotificationHandler(sdk.RootsListChangedNotificationSchema, () => state.links?.rootsChanged());
  return { server, capabilities };
}
