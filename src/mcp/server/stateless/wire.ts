import { decodedHeaderValue } from "./param-headers";

/** The 2026-07-28 revision of MCP: stateless, every request says its version and its client in `_meta`. */
export const STATELESS_VERSION = "2026-07-28";

/**
 * The revisions of the initialize handshake: the MCP SDK's SUPPORTED_PROTOCOL_VERSIONS, written out
 * because importing its types module would load the SDK for a gateway that never speaks MCP.
 */
export const HANDSHAKE_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"];

export const SUPPORTED_VERSIONS = [STATELESS_VERSION, ...HANDSHAKE_VERSIONS];

export const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
} as const;

const RESERVED_META_PREFIX = "io.modelcontextprotocol/";

export const RPC = {
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  headerMismatch: -32020,
  missingCapability: -32021,
  unsupportedVersion: -32022,
} as const;

export type RequestId = string | number;

export interface StatelessRequest {
  jsonrpc: "2.0";
  id: RequestId;
  method: string;
  params: Record<string, unknown> & { _meta: Record<string, unknown> };
}

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The version a request's `_meta` names, if it names one. */
const metaVersionOf = (body: unknown): unknown => (isRecord(body) && isRecord(body.params) && isRecord(body.params._meta) ? body.params._meta[META.protocolVersion] : undefined);

/**
 * Whether a POST speaks the stateless revision: its `_meta` names a version, or its
 * MCP-Protocol-Version header names one the handshake does not know. Every other request
 * (an initialize, a session's request, an old client's) takes the SDK's path as before.
 */
export function speaksStateless(headers: Headers, body: unknown): boolean {
  if (metaVersionOf(body) !== undefined) return true;
  const header = headers.get("mcp-protocol-version");
  return header !== null && !HANDSHAKE_VERSIONS.includes(header);
}

export function rpcErrorResponse(status: number, id: RequestId | null, code: number, message: string, data?: unknown): Response {
  return Response.json({ jsonrpc: "2.0", id, error: { code, message, ...(data === undefined ? {} : { data }) } }, { status });
}

/** The request's `_meta` without the protocol's own keys: what an upstream of an earlier revision may see. */
export function callerMeta(meta: Record<string, unknown>): Record<string, unknown> | undefined {
  const kept = Object.entries(meta).filter(([key]) => !key.startsWith(RESERVED_META_PREFIX));
  return kept.length > 0 ? Object.fromEntries(kept) : undefined;
}

const NAMED_BY: Record<string, "name" | "uri"> = { "tools/call": "name", "prompts/get": "name", "resources/read": "uri" };

/** The headers that mirror the body must be there and say the same (spec: Server Validation). */
function headerMismatch(headers: Headers, request: StatelessRequest): string | undefined {
  const version = headers.get("mcp-protocol-version");
  if (version !== request.params._meta[META.protocolVersion]) return `MCP-Protocol-Version header '${version ?? ""}' does not match _meta's protocol version`;
  const method = headers.get("mcp-method");
  if (method !== request.method) return `Mcp-Method header '${method ?? ""}' does not match the method '${request.method}'`;
  const field = NAMED_BY[request.method];
  if (!field) return undefined;
  const name = headers.get("mcp-name");
  if (name === null || decodedHeaderValue(name) !== request.params[field]) return `Mcp-Name header does not match params.${field}`;
  return undefined;
}

/**
 * A POST body as a stateless request, or the error the revision prescribes: -32602 for a missing
 * `_meta` field, -32020 when the headers say otherwise, -32022 for a version not served.
 */
export function checkedRequest(headers: Headers, body: unknown): StatelessRequest | Response {
  if (!isRecord(body) || body.jsonrpc !== "2.0" || typeof body.method !== "string") return rpcErrorResponse(400, null, RPC.invalidRequest, "a 2026-07-28 request is one JSON-RPC request object");
  const id = typeof body.id === "string" || typeof body.id === "number" ? body.id : null;
  if (id === null) return rpcErrorResponse(400, null, RPC.invalidRequest, "a 2026-07-28 request needs an id: this revision has no notifications from the client over HTTP");
  const params = isRecord(body.params) ? body.params : {};
  const meta = params._meta;
  if (!isRecord(meta)) return rpcErrorResponse(400, id, RPC.invalidParams, "params._meta is required: it carries the protocol version and the client's capabilities");
  for (const key of [META.protocolVersion, META.clientCapabilities]) {
    if (meta[key] === undefined) return rpcErrorResponse(400, id, RPC.invalidParams, `params._meta['${key}'] is required`);
  }
  if (!isRecord(meta[META.clientCapabilities])) return rpcErrorResponse(400, id, RPC.invalidParams, `params._meta['${META.clientCapabilities}'] must be an object`);
  const request = { jsonrpc: "2.0" as const, id, method: body.method, params: { ...params, _meta: meta } };
  const mismatch = headerMismatch(headers, request);
  if (mismatch) return rpcErrorResponse(400, id, RPC.headerMismatch, `Header mismatch: ${mismatch}`);
  const requested = meta[META.protocolVersion];
  if (requested !== STATELESS_VERSION) {
    const hint = HANDSHAKE_VERSIONS.includes(String(requested)) ? ` (${String(requested)} is served after an initialize handshake, without these _meta fields)` : "";
    return rpcErrorResponse(400, id, RPC.unsupportedVersion, `Unsupported protocol version: ${String(requested)}${hint}`, { supported: SUPPORTED_VERSIONS, requested });
  }
  return request;
}
