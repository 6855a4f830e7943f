import { presentedVirtualKey } from "../governance/caller";
import { GatewayError } from "../http/errors";
import type { McpToolSearch } from "../db/schema/types";
import type { VirtualKeyMcpConfig } from "./tools/filter";

/** What the MCP gateway needs to know of a virtual key. */
export interface McpVirtualKey {
  id: string;
  name: string;
  active: boolean;
  mcpConfigs?: VirtualKeyMcpConfig[];
  /** The key's tool search setting, when it has one. */
  toolSearch?: McpToolSearch | null;
}

/**
 * The one lookup the MCP gateway needs from governance: a key by its value (for /mcp and
 * /v1/mcp/tool/execute) or by its id (for chat requests governance already authenticated).
 * Without one, no presented key is valid.
 */
export interface VirtualKeyDirectory {
  byValue(value: string): Promise<McpVirtualKey | undefined>;
  byId(id: string): Promise<McpVirtualKey | undefined>;
}

/** Who is calling an MCP surface: their virtual key, and the opaque session id they may send. */
export interface McpCaller {
  virtualKey?: McpVirtualKey;
  /** A dashboard user a virtual server admits by id or role, with their session token instead of a key. */
  user?: { id: string; roleId: number };
  /** `x-gw-mcp-session-id`: the identity of per-user credentials for callers without a virtual key. */
  sessionId?: string;
}

export const MCP_SESSION_HEADER = "x-gw-mcp-session-id";

/** Who an MCP session belongs to: every later request of it must come from the same. */
export const callerIdentity = (caller: McpCaller) => caller.virtualKey?.id ?? (caller.user && `user:${caller.user.id}`);

const unauthenticated = (message: string, errorType: `caller_${string}`) => new GatewayError({ status: 401, errorType, message });

/**
 * Authenticates a caller of /mcp or /v1/mcp/tool/execute (spec 5): a presented key must be valid
 * even when authentication is optional; with `enforce` a key is required.
 */
export async function identifyCaller(headers: Headers, directory: VirtualKeyDirectory | undefined, enforce: boolean): Promise<McpCaller> {
  const sessionId = headers.get(MCP_SESSION_HEADER) ?? undefined;
  const presented = presentedVirtualKey(headers);
  if (!presented) {
    if (enforce) throw unauthenticated("a virtual key is required (x-gw-vk or Authorization: Bearer sk-gw-...)", "caller_virtual_key_required");
    return { sessionId };
  }
  const virtualKey = await directory?.byValue(presented);
  if (!virtualKey) throw unauthenticated("the virtual key is not valid", "caller_virtual_key_invalid");
  if (!virtualKey.active) throw new GatewayError({ status: 403, errorType: "caller_virtual_key_inactive", message: `virtual key '${virtualKey.name}' is inactive` });
  return { virtualKey, sessionId };
}
