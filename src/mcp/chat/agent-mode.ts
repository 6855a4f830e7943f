import { GatewayError } from "../../http/errors";
import { autoExecutes, type OfferedTool } from "../tools/catalogue";
import type { CallContext, ToolCall, ToolExecutor } from "../tools/executor";

interface AssistantMessage {
  role: "assistant";
  content?: unknown;
  tool_calls?: ToolCall[];
}

interface Completion {
  choices?: Array<{ message?: AssistantMessage; finish_reason?: string }>;
}

/** The reply's tool calls when every one of them is an MCP tool agent mode may run by itself. */
export function autoExecutableCalls(completion: Completion, offered: readonly OfferedTool[]): { message: AssistantMessage; calls: ToolCall[] } | undefined {
  const [choice, ...others] = completion.choices ?? [];
  const message = choice?.message;
  const calls = message?.tool_calls ?? [];
  if (others.length > 0 || !message || calls.length === 0) return undefined;
  const runnable = calls.every((call) => offered.some((tool) => tool.exposedName === call.function?.name && autoExecutes(tool)));
  return runnable ? { message, calls } : undefined;
}

/** Errors the caller must act on (values to submit, an identity to send) end the loop; other failures are told to the model. */
const mustReachCaller = (error: unknown) => error instanceof GatewayError && (error.errorType === "caller_mcp_auth_required" || error.errorType === "caller_mcp_identity_required");

/** Runs one round of tool calls in parallel and answers the tool messages to feed back. */
export async function runToolRound(executor: ToolExecutor, calls: ToolCall[], context: CallContext) {
  return Promise.all(
    calls.map(async (call) => {
      try {
        const outcome = await executor.execute(call, context);
        return { role: "tool", tool_call_id: call.id, content: outcome.text };
      } catch (error) {
        if (mustReachCaller(error) || !(error instanceof GatewayError)) throw error;
        return { role: "tool", tool_call_id: call.id, content: `error: ${error.message}` };
      }
    }),
  );
}

export const parseCompletion = (text: string): Completion | undefined => {
  try {
    return JSON.parse(text) as Completion;
  } catch {
    return undefined;
  }
};
