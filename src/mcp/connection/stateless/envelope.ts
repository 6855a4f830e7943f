import type { ClientCapabilities, Implementation, JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import { META, STATELESS_VERSION } from "../../server/stateless/wire";
import { mirroredHeaders } from "./headers";

/** Who sends a 2026-07-28 request: every request says it in its `_meta`, there being no handshake. */
export interface ClientIdentity {
  clientInfo: Implementation;
  capabilities: ClientCapabilities;
  /** The log messages wanted on each reply, set by `logging/setLevel`. */
  logLevel?: string;
}

/** A request as the revision sends it: the identity in `_meta` (beside the caller's own keys), and the headers mirroring it. */
export function enveloped(request: JSONRPCRequest, identity: ClientIdentity, inputSchemaOf: (tool: string) => unknown = () => undefined): { body: JSONRPCRequest; headers: Record<string, string> } {
  const params = request.params ?? {};
  const meta = {
    ...params._meta,
    [META.protocolVersion]: STATELESS_VERSION,
    [META.clientInfo]: identity.clientInfo,
    [META.clientCapabilities]: identity.capabilities,
    ...(identity.logLevel ? { [META.logLevel]: identity.logLevel } : {}),
  };
  const body = { ...request, params: { ...params, _meta: meta } };
  return { body, headers: mirroredHeaders(request.method, body.params, inputSchemaOf) };
}
