import { identifyCaller, type VirtualKeyDirectory } from "./caller";
import type { ToolCallSource } from "./logs/writer";
import type { CallContext } from "./tools/executor";
import { toolFilterOf } from "./tools/filter";

export interface CallerAuth {
  virtualKeys?: VirtualKeyDirectory;
  /** `enforce_auth_on_inference`: a virtual key is required. Read per call. */
  enforceAuth: () => boolean;
}

/** Authenticates a direct MCP request (/mcp, /v1/mcp/tool/execute) and works out what it may use. */
export async function callContextOf(request: Request, auth: CallerAuth, source: ToolCallSource): Promise<CallContext> {
  const caller = await identifyCaller(request.headers, auth.virtualKeys, auth.enforceAuth());
  return { caller, filter: toolFilterOf(request.headers, caller.virtualKey?.mcpConfigs), source, origin: new URL(request.url).origin };
}
