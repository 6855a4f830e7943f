import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { badRequest, GatewayError } from "../../http/errors";
import type { McpCaller } from "../caller";
import type { McpClientRegistry } from "../clients/registry";
import { describeError, isAuthRefusal, type McpReach, openUpstream } from "../connection/upstream";
import type { McpLogWriter, ToolCallSource } from "../logs/writer";
import type { PerUserHeaderResolver } from "../per-user/auth-required";
import { type CallResult, loggedResultText, upstreamFailure } from "./call-result";
import { type OfferedTool, resolveOfferedTool } from "./catalogue";
import type { ToolFilter } from "./filter";

/** A tool call in OpenAI's shape: `arguments` is a JSON object in a string. */
export interface ToolCall {
  id: string;
  function: { name: string; arguments?: string };
}

/** Who asks for a call and through which door. */
export interface CallContext {
  caller: McpCaller;
  filter: ToolFilter;
  source: ToolCallSource;
  /** The origin the request came to, for the authorize URL of a per-user flow. */
  origin: string;
  llmRequestId?: string;
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
  const required = failure.extra.mcp_auth_required as { session_id: string } | undefined;
  return required ? `per-user header values required (flow ${required.session_id})` : failure.message;
}

/** Runs tool calls on the clients that own them, with the right credentials, logging each one. */
export class ToolExecutor {
  constructor(
    private readonly registry: McpClientRegistry,
    private readonly perUser: PerUserHeaderResolver,
    private readonly logs: McpLogWriter,
    private readonly timeoutMs: number,
    private readonly reach: McpReach,
  ) {}

  /** The tool's result, as its server answered it (`isError` set when the tool itself failed). */
  async execute(call: ToolCall, context: CallContext): Promise<CallResult> {
    const tool = resolveOfferedTool(this.registry, call.function.name, context.filter);
    const args = parseArguments(call.function.arguments);
    const { config } = tool.client;
    const logId = await this.logs.start({
      toolName: tool.toolName,
      serverLabel: config.name,
      mcpClientId: config.id,
      source: context.source,
      llmRequestId: context.llmRequestId,
      arguments: args,
      virtualKey: context.caller.virtualKey,
    });
    const startedAt = performance.now();
    try {
      const result = await this.run(tool, args, context);
      await this.logs.finish(logId, { status: result.isError === true ? "error" : "success", result: () => loggedResultText(result), latencyMs: performance.now() - startedAt, cost: config.toolPricing[tool.toolName] });
      return result;
    } catch (error) {
      const failure = upstreamFailure(config.name, error);
      await this.logs.finish(logId, { status: "error", errorMessage: loggedMessage(failure), latencyMs: performance.now() - startedAt });
      throw failure;
    }
  }

  private run(tool: OfferedTool, args: Record<string, unknown>, context: CallContext): Promise<CallResult> {
    return tool.client.connection ? this.runOnConnection(tool, args) : this.runPerUser(tool, args, context);
  }

  private async runOnConnection(tool: OfferedTool, args: Record<string, unknown>): Promise<CallResult> {
    // The tool was resolved before the call was logged; a change meanwhile (here or on another
    // node) may have replaced the client's connection and retired this one: use the current one.
    const connection = this.registry.get(tool.client.config.id)?.connection ?? tool.client.connection!;
    const client = connection.session();
    if (!client) {
      const reason = connection.lastError ? `: ${connection.lastError}` : "";
      throw new GatewayError({ status: 503, errorType: "provider_mcp_unavailable", message: `MCP client '${tool.client.config.name}' is ${connection.state}${reason}` });
    }
    try {
      return await connection.track(this.call(client, tool.toolName, args));
    } catch (error) {
      connection.noteFailure(client, error);
      throw error;
    }
  }

  /** A fresh session with the caller's own values; a refusal asks the caller for new ones. */
  private async runPerUser(tool: OfferedTool, args: Record<string, unknown>, context: CallContext): Promise<CallResult> {
    const { config } = tool.client;
    const { owner, values } = await this.perUser.valuesFor(config, context.caller, context.origin);
    const session = await openUpstream(config, values, this.timeoutMs, this.reach).catch(async (error) => {
      throw isAuthRefusal(error) ? await this.perUser.authRequired(config, owner, context.origin) : error;
    });
    try {
      this.registry.noteDiscovered(config.id, session.tools);
      return await this.call(session.client, tool.toolName, args);
    } finally {
      await session.client.close().catch((error) => console.error(`MCP client '${config.name}': closing a per-user session failed: ${describeError(error)}`));
    }
  }

  private async call(client: Client, name: string, args: Record<string, unknown>): Promise<CallResult> {
    return (await client.callTool({ name, arguments: args }, undefined, { timeout: this.timeoutMs })) as CallResult;
  }
}
