import { GatewayError } from "../../http/errors";
import { loggedBodyJson } from "../../logs/logged-body";
import { describeError } from "../connection/upstream";
import { loadedMcpClientSdk } from "../sdk";

/** What `tools/call` answers: content parts, optional structured content, and whether the tool failed. */
export interface CallResult {
  content?: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  toolResult?: unknown;
}

/** The result as the text of an OpenAI tool message: text parts joined, other parts as JSON (by `serialize`). */
export function resultText(result: CallResult, serialize: (value: unknown) => string = JSON.stringify): string {
  if (result.toolResult !== undefined) return serialize(result.toolResult);
  const parts = (result.content ?? []).map((part) => (part.type === "text" && typeof part.text === "string" ? part.text : serialize(part)));
  if (parts.length === 0 && result.structuredContent) return serialize(result.structuredContent);
  return parts.join("\n");
}

/** The result as the MCP log keeps it: credentials and inline media (a screenshot's base64) left out of the parts that are not text. */
export const loggedResultText = (result: CallResult) => resultText(result, loggedBodyJson);

/** The SDK writes an McpError's code in front of its message, and the caller's SDK writes it again: keep it once. */
export const mcpErrorText = (error: Error) => error.message.replace(/^(MCP error -?\d+: )+/, "");

/** An upstream failure as a gateway error: a timeout, an MCP error the server answered, or no answer at all. */
export function upstreamFailure(clientName: string, error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  // Only the SDK raises MCP errors, so while it is not loaded there are none.
  const sdk = loadedMcpClientSdk();
  if (sdk && error instanceof sdk.McpError && error.code === sdk.ErrorCode.RequestTimeout) {
    return new GatewayError({ status: 504, errorType: "provider_mcp_timeout", message: `MCP client '${clientName}' did not answer in time` });
  }
  if (sdk && error instanceof sdk.McpError && error.code !== sdk.ErrorCode.ConnectionClosed) {
    const failure = new GatewayError({ status: 502, errorType: "provider_mcp_error", message: `MCP client '${clientName}' answered with an error: ${mcpErrorText(error)}`, isGatewayError: false });
    failure.cause = error;
    return failure;
  }
  return new GatewayError({ status: 502, errorType: "provider_mcp_unreachable", message: `MCP client '${clientName}' could not be reached: ${describeError(error)}` });
}
