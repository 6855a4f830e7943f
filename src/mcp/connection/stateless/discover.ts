import type { Implementation, InitializeResult, ServerCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { HANDSHAKE_VERSIONS, META, STATELESS_VERSION } from "../../server/stateless/wire";
import { type ClientIdentity, enveloped } from "./envelope";
import { exchange, type StatelessEndpoint } from "./exchange";

/** What `server/discover` told of a server: what the initialize handshake tells of the revisions before. */
export interface Discovery {
  serverInfo: Implementation;
  capabilities: ServerCapabilities;
  instructions?: string;
}

/** The server does not speak the revision: an error, a refusal, or a list of revisions without it. */
export class RevisionNotOffered extends Error {
  constructor(why: string) {
    super(`the server does not offer MCP ${STATELESS_VERSION}: ${why}`);
  }
}

const UNNAMED_SERVER: Implementation = { name: "mcp-server", version: "unknown" };

/** Asks the server which revisions it speaks and what it offers; throws unless 2026-07-28 is one. */
export async function discover(endpoint: StatelessEndpoint, identity: ClientIdentity, signal: AbortSignal): Promise<Discovery> {
  const { body, headers } = enveloped({ jsonrpc: "2.0", id: 0, method: "server/discover", params: {} }, identity);
  // An HTTP answer that is no JSON-RPC answer is a server of an earlier revision refusing the
  // request; the rest (unreachable, credentials refused) would fail any revision and stays as it is.
  const answer = await exchange(endpoint, body, headers, signal).catch((error: unknown) => {
    throw error instanceof endpoint.sdk.StreamableHTTPError ? new RevisionNotOffered(`server/discover failed: ${error.message}`) : error;
  });
  if ("error" in answer) throw new RevisionNotOffered(`server/discover was answered with error ${answer.error.code}: ${answer.error.message}`);
  const result = answer.result as { supportedVersions?: unknown; capabilities?: ServerCapabilities; instructions?: string; _meta?: Record<string, unknown> };
  if (!Array.isArray(result.supportedVersions) || !result.supportedVersions.includes(STATELESS_VERSION)) {
    throw new RevisionNotOffered(`it lists ${JSON.stringify(result.supportedVersions ?? [])}`);
  }
  const serverInfo = (result._meta?.[META.serverInfo] as Implementation | undefined) ?? UNNAMED_SERVER;
  return { serverInfo, capabilities: result.capabilities ?? {}, ...(result.instructions ? { instructions: result.instructions } : {}) };
}

/**
 * The discovery as the SDK's `Client` expects an initialize result. It names the newest revision
 * the `Client` knows: the transport, not the `Client`, speaks the wire.
 */
export const initializeResultOf = (discovery: Discovery): InitializeResult => ({ protocolVersion: HANDSHAKE_VERSIONS[0]!, ...discovery });
