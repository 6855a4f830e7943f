import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Progress, ServerNotification } from "@modelcontextprotocol/sdk/types.js";
import { badRequest, GatewayError } from "../../http/errors";
import type { McpCaller } from "../caller";
import type { McpClientRegistry, RegisteredClient } from "../clients/registry";
import type { NotificationRelays } from "../connection/relays";
import type { McpClientConfig } from "../clients/config";
import { describeError, isAuthRefusal, type McpReach, openUpstream, type UpstreamSession } from "../connection/upstream";
import { OAuthConsentNeeded } from "../oauth/connections";
import type { PerUserOAuthResolver } from "../per-user/oauth";
import type { ToolCallLog } from "../logs/observed";
import type { ToolCallSource } from "../logs/writer";
import type { PerUserHeaderResolver } from "../per-user/auth-required";
import { type CallResult, loggedResultText, upstreamFailure } from "./call-result";
import { type OfferedTool, resolveOfferedTool } from "./catalogue";
import type { ToolFilter } from "./filter";

/** A tool call in OpenAI's shape: `arguments` is a JSON object in a string. */
export interface ToolCall {
  id: string;
  function: { name: string; arguments?: string };
}

/** An upstream session the caller has of its own (it declares the caller's capabilities), with the calls under way on it. */
export interface UpstreamLink {
  client: Client;
  relays: NotificationRelays;
}

/** What travels between an MCP caller and the upstream during a call. */
export interface CallRelay {
  /** The caller's `_meta` without its progress token (the upstream gets one of the gateway's). */
  meta?: Record<string, unknown>;
  /** Set when the caller asked for progress; progress also extends the call's timeout. */
  onprogress?: (progress: Progress) => void;
  /** Aborted when the caller cancels: the upstream gets notifications/cancelled. */
  signal?: AbortSignal;
  /** The upstream's log messages during the call. */
  notify?: (notification: ServerNotification) => void;
  /** The caller's own session with the client, when it has one. */
  ownLink?: (client: RegisteredClient) => Promise<UpstreamLink | undefined>;
}

/** Who asks for a call and through which door. */
export interface CallContext {
  caller: McpCaller;
  filter: ToolFilter;
  source: ToolCallSource;
  /** The origin the request came to, for the authorize URL of a per-user flow. */
  origin: string;
  llmRequestId?: string;
  relay?: CallRelay;
}

function parseArguments(raw: string | undefined): Record<string, unknown> {
  if (raw === undefined || raw.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw badRequest("function.arguments is not valid JSON", "function.arguments");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw badRequest("function.arguments must be a JSON object", "function.arguments");
  return parsed as Record<string, unknown>;
}

/** The failure as the MCP log keeps it: an auth-required message carries the flow's temp token, which stays out of logs. */
function loggedMessage(failure: GatewayError): string {
  const required = failure.extra.mcp_auth_required as { kind: string; session_id: string } | undefined;
  if (!required) return failure.message;
  return required.kind === "oauth" ? `per-user OAuth consent required (flow ${required.session_id})` : `per-user header values required (flow ${required.session_id})`;
}

/** The relay, counting what it passes on for the call's log row. */
function countingRelay(relay: CallRelay | undefined) {
  const counts = { progress: 0, messages: 0 };
  if (!relay) return { relay, counts: () => undefined };
  const counted: CallRelay = {
    ...relay,
    onprogress: relay.onprogress && ((progress) => (counts.progress++, relay.onprogress!(progress))),
    notify: relay.notify && ((notification) => (counts.messages++, relay.notify!(notification))),
  };
  return { relay: counted, counts: () => ({ ...counts }) };
}

/** The server label of the calls the gateway answers itself; a client's name has no hyphen, so none is named so. */
const GATEWAY_SERVER_LABEL = "tool-search";

/** What a call the gateway answers itself gives: its result, and the text the MCP log keeps of it. */
export interface AnsweredHere {
  result: CallResult;
  logged: string;
}

/** Who made the call and through which door, as its log row says. */
const loggedCaller = (context: CallContext) => ({ source: context.source, llmRequestId: context.llmRequestId, virtualKey: context.caller.virtualKey, virtualServer: context.filter.virtual?.slug });

/** Runs tool calls on the clients that own them, with the right credentials, logging each one. */
export class ToolExecutor {
  constructor(
    private readonly registry: McpClientRegistry,
    private readonly perUser: PerUserHeaderResolver,
    private readonly perUserOAuth: PerUserOAuthResolver,
    private readonly logs: ToolCallLog,
    private readonly timeouts: { timeoutMs: number; maxTimeoutMs: number },
    private readonly reach: McpReach,
  ) {}

  /** The tool's result, as its server answered it (`isError` set when the tool itself failed). */
  async execute(call: ToolCall, context: CallContext): Promise<CallResult> {
    const tool = resolveOfferedTool(this.registry, call.function.name, context.filter);
    const args = parseArguments(call.function.arguments);
    const { config } = tool.client;
    const logId = await this.logs.start({ ...loggedCaller(context), toolName: tool.toolName, serverLabel: config.name, mcpClientId: config.id, arguments: args });
    const startedAt = performance.now();
    const relayed = countingRelay(context.relay);
    try {
      const result = await this.run(tool, args, { ...context, relay: relayed.relay });
      await this.logs.finish(logId, {
        status: result.isError === true ? "error" : "success",
        result: () => loggedResultText(result),
        latencyMs: performance.now() - startedAt,
        cost: config.toolPricing[tool.toolName],
        notifications: relayed.counts(),
      });
      return result;
    } catch (error) {
      const failure = upstreamFailure(config.name, error);
      const cancelled = context.relay?.signal?.aborted === true;
      await this.logs.finish(logId, { status: "error", errorMessage: cancelled ? "cancelled by the caller" : loggedMessage(failure), latencyMs: performance.now() - startedAt, notifications: relayed.counts(), cancelled });
      throw failure;
    }
  }

  /**
   * A call the gateway answers itself, without an upstream (`search_tools`), logged like any call
   * under the server label `tool-search`: `answer` gives the result and the text the log keeps of it.
   */
  async answerHere(name: string, args: Record<string, unknown>, context: CallContext, answer: () => Promise<AnsweredHere>): Promise<CallResult> {
    const logId = await this.logs.start({ ...loggedCaller(context), toolName: name, serverLabel: GATEWAY_SERVER_LABEL, arguments: args });
    const startedAt = performance.now();
    const answered = await answer().catch(async (error: unknown) => {
      await this.logs.finish(logId, { status: "error", errorMessage: error instanceof Error ? error.message : String(error), latencyMs: performance.now() - startedAt });
      throw error;
    });
    const failed = answered.result.isError === true;
    await this.logs.finish(logId, { status: failed ? "error" : "success", result: () => answered.logged, errorMessage: failed ? answered.logged : undefined, latencyMs: performance.now() - startedAt });
    return answered.result;
  }

  private async run(tool: OfferedTool, args: Record<string, unknown>, context: CallContext): Promise<CallResult> {
    if (!tool.client.connection) return this.runPerUser(tool, args, context);
    const own = await context.relay?.ownLink?.(tool.client);
    if (own) return this.call(own.client, own.relays, tool.toolName, args, context.relay);
    return this.runOnConnection(tool, args, context.relay);
  }

  private async runOnConnection(tool: OfferedTool, args: Record<string, unknown>, relay: CallRelay | undefined): Promise<CallResult> {
    // The tool was resolved before the call was logged; a change meanwhile (here or on another
    // node) may have replaced the client's connection and retired this one: use the current one.
    const connection = this.registry.get(tool.client.config.id)?.connection ?? tool.client.connection!;
    const client = connection.session();
    if (!client) {
      const reason = connection.lastError ? `: ${connection.lastError}` : "";
      throw new GatewayError({ status: 503, errorType: "provider_mcp_unavailable", message: `MCP client '${tool.client.config.name}' is ${connection.state}${reason}` });
    }
    try {
      return await connection.track(this.call(client, connection.relays, tool.toolName, args, relay));
    } catch (error) {
      connection.noteFailure(client, error);
      throw error;
    }
  }

  /** A fresh session with the caller's own values; a refusal asks the caller for new ones. */
  private async runPerUser(tool: OfferedTool, args: Record<string, unknown>, context: CallContext): Promise<CallResult> {
    const { config } = tool.client;
    const session = await (config.authType === "oauth" ? this.openWithOwnTokens(config, context) : this.openWithOwnHeaders(config, context));
    try {
      this.registry.noteDiscovered(config.id, session.tools);
      return await this.call(session.client, undefined, tool.toolName, args, context.relay);
    } finally {
      await session.client.close().catch((error) => console.error(`MCP client '${config.name}': closing a per-user session failed: ${describeError(error)}`));
    }
  }

  private async openWithOwnHeaders(config: McpClientConfig, context: CallContext): Promise<UpstreamSession> {
    const { owner, values } = await this.perUser.valuesFor(config, context.caller, context.origin);
    return openUpstream(config, values, this.timeouts.timeoutMs, this.reach).catch(async (error) => {
      throw isAuthRefusal(error) ? await this.perUser.authRequired(config, owner, context.origin) : error;
    });
  }

  /** A refused or lost token asks the caller to consent again. */
  private async openWithOwnTokens(config: McpClientConfig, context: CallContext): Promise<UpstreamSession> {
    const { owner, provider } = await this.perUserOAuth.providerFor(config, context.caller, context.origin);
    return openUpstream(config, {}, this.timeouts.timeoutMs, this.reach, { authProvider: provider }).catch(async (error) => {
      throw error instanceof OAuthConsentNeeded || isAuthRefusal(error) ? await this.perUserOAuth.authRequired(config, owner, context.origin) : error;
    });
  }

  /** Progress resets the timeout, up to the maximum; the caller's cancellation reaches the upstream. */
  private async call(client: Client, relays: NotificationRelays | undefined, name: string, args: Record<string, unknown>, relay: CallRelay | undefined): Promise<CallResult> {
    const stopRelaying = relay?.notify && relays ? relays.add(relay.notify) : undefined;
    try {
      const params = { name, arguments: args, ...(relay?.meta ? { _meta: relay.meta } : {}) };
      const options = { timeout: this.timeouts.timeoutMs, maxTotalTimeout: this.timeouts.maxTimeoutMs, resetTimeoutOnProgress: true, onprogress: relay?.onprogress ?? (() => {}), signal: relay?.signal };
      return (await client.callTool(params, undefined, options)) as CallResult;
    } finally {
      stopRelaying?.();
    }
  }
}
