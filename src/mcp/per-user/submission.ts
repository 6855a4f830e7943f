import { badRequest, GatewayError, notFound } from "../../http/errors";
import type { McpPerUserHeaderFlowRow } from "../../db/schema";
import { connectsPerCaller, type McpClientConfig } from "../clients/config";
import type { McpClientRegistry, RegisteredClient } from "../clients/registry";
import { describeError, isAuthRefusal, type McpReach, openUpstream } from "../connection/upstream";
import type { PerUserCredentialStore } from "./credentials";
import type { PerUserHeaderFlowState } from "../../../actors/per-user-header-flow";
import type { PerUserHeaderFlowStore } from "./flows";

export interface FlowDeps {
  flows: PerUserHeaderFlowStore;
  credentials: PerUserCredentialStore;
  registry: McpClientRegistry;
}

/** Verification: initialize and list tools with the values; the tools become the client's known tools. */
export const verifyAgainstUpstream =
  (registry: McpClientRegistry, timeoutMs: number, reach: McpReach) =>
  async (mcpClientId: string, values: Record<string, string>): Promise<void> => {
    const client = registry.require(mcpClientId);
    const session = await openUpstream(client.config, values, timeoutMs, reach);
    await session.client.close();
    registry.noteDiscovered(mcpClientId, session.tools);
  };

/** What a flow waits for: header values, or a consent at the authorization server. */
const flowKind = (config: McpClientConfig): "oauth" | "headers" => (config.authType === "oauth" ? "oauth" : "headers");

const gone = () => new GatewayError({ status: 410, errorType: "caller_mcp_flow_expired", message: "this per-user header flow has expired: call the tool again for a new one" });

/** The flow and its (live) client: 404 when either is unknown, 410 once the flow has expired. */
async function liveFlow(deps: FlowDeps, id: string): Promise<{ row: McpPerUserHeaderFlowRow; client: RegisteredClient; state: PerUserHeaderFlowState }> {
  const row = await deps.flows.find(id);
  const client = row && deps.registry.get(row.mcpClientId);
  if (!row || !client || !connectsPerCaller(client.config)) throw notFound(`per-user header flow '${id}' does not exist`, "caller_mcp_flow_not_found");
  const state = deps.flows.stateOf(row);
  if (state === "expired") throw gone();
  return { row, client, state };
}

/** GET flows/{id}: which header keys to fill in, never any value. */
export async function describeFlow(deps: FlowDeps, id: string) {
  const { row, client, state } = await liveFlow(deps, id);
  const { config } = client;
  const stored = await deps.credentials.find(row, config.id);
  return {
    id: row.id,
    flow_mode: row.mode,
    kind: flowKind(config),
    status: state,
    mcp_client: { id: config.id, name: config.name },
    ...(row.mode === "virtual_key" ? { virtual_key_id: row.identity } : {}),
    required_header_keys: config.perUserHeaderKeys,
    admin_header_keys: Object.keys(config.headers),
    submitted_keys: stored ? Object.keys(stored.values).sort() : [],
    has_active_credential: stored !== undefined,
    expires_at: row.expiresAt.toISOString(),
    created_at: row.createdAt.toISOString(),
  };
}

/** GET flows: the flows waiting for values (or expired unanswered), each with its client and owner; never a value or token. */
export async function listFlows(deps: FlowDeps, state: PerUserHeaderFlowState | undefined) {
  const flows = [];
  for (const row of await deps.flows.list()) {
    const client = deps.registry.get(row.mcpClientId);
    const status = deps.flows.stateOf(row);
    if (!client || (state && status !== state)) continue;
    flows.push({
      id: row.id,
      flow_mode: row.mode,
      kind: flowKind(client.config),
      status,
      mcp_client: { id: client.config.id, name: client.config.name },
      ...(row.mode === "virtual_key" ? { virtual_key_id: row.identity } : {}),
      required_header_keys: client.config.perUserHeaderKeys,
      expires_at: row.expiresAt.toISOString(),
      created_at: row.createdAt.toISOString(),
    });
  }
  return { flows, count: flows.length };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** What an HTTP header value may hold (RFC 9110 field-value): visible characters, spaces, tabs, and Latin-1. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** The submitted values for the client's live keys (matched case-insensitively); any other key is dropped. */
export function liveValues(keys: readonly string[], body: Record<string, unknown>): Record<string, string> {
  const source = isRecord(body.headers) ? body.headers : body;
  const param = source === body ? "" : "headers.";
  const submitted = new Map(Object.entries(source).map(([name, value]) => [name.toLowerCase(), { name, value }]));
  const values: Record<string, string> = {};
  for (const key of keys) {
    const entry = submitted.get(key);
    if (typeof entry?.value !== "string" || entry.value.trim() === "") throw badRequest(`a non-empty value for header '${key}' is required`, `${param}${entry?.name ?? key}`);
    if (!HEADER_VALUE.test(entry.value)) throw badRequest(`the value for header '${key}' holds characters an HTTP header cannot carry (line breaks, control characters)`, `${param}${entry.name}`);
    values[key] = entry.value;
  }
  return values;
}

/**
 * PUT flows/{id} (spec 4.13): verifies the values against the upstream (initialize and list
 * tools with them), upserts the credential of the flow's (mode, identity), then deletes the flow
 * row and its temp token.
 */
export async function submitFlow(deps: FlowDeps, id: string, body: Record<string, unknown>) {
  const { row, client } = await liveFlow(deps, id);
  if (flowKind(client.config) === "oauth") throw badRequest(`MCP client '${client.config.name}' uses OAuth: this flow ends when its caller consents at the authorization_url the tool call answered`, "id", "caller_mcp_flow_is_oauth");
  const values = liveValues(client.config.perUserHeaderKeys, body);
  const { state, refusal } = await deps.flows.submit(row, values);
  if (state === "expired") throw gone();
  if (state !== "consumed") {
    if (isAuthRefusal(refusal)) throw new GatewayError({ status: 422, errorType: "caller_mcp_headers_rejected", message: `MCP client '${client.config.name}' refused these header values`, param: "headers" });
    throw new GatewayError({ status: 502, errorType: "provider_mcp_unreachable", message: `the values could not be verified: MCP client '${client.config.name}' failed: ${describeError(refusal)}` });
  }
  const credential = await deps.credentials.upsert(row, client.config.id, values);
  await deps.flows.remove(row.id);
  return { status: "success" as const, credential_id: credential.id, updated_at: credential.updatedAt.toISOString() };
}
