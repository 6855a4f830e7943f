import { GatewayError } from "../../http/errors";
import { MCP_SESSION_HEADER, type McpCaller } from "../caller";
import type { McpClientConfig } from "../clients/config";
import { type CredentialOwner, ownerOf, type PerUserCredentialStore, valuesForKeys } from "./credentials";
import type { PerUserHeaderFlowStore } from "./flows";

export const FLOWS_PATH = "/api/mcp/per-user-headers/flows";

export interface PerUserHeaderValues {
  owner: CredentialOwner;
  values: Record<string, string>;
}

/** A per-user client called by someone with no identity to keep credentials for. */
export const identityRequired = (config: McpClientConfig, what: string) =>
  new GatewayError({
    status: 401,
    errorType: "caller_mcp_identity_required",
    message: `MCP client '${config.name}' needs each caller's ${what}: send a virtual key, or an opaque ${MCP_SESSION_HEADER} you will send again`,
  });

/**
 * Finds the caller's own header values for a per_user_headers client; when there are none (or
 * the upstream refused them), opens a submission flow and answers with `mcp_auth_required`.
 */
export class PerUserHeaderResolver {
  constructor(
    private readonly credentials: PerUserCredentialStore,
    private readonly flows: PerUserHeaderFlowStore,
    private readonly publicBaseUrl: string | undefined,
  ) {}

  async valuesFor(config: McpClientConfig, caller: McpCaller, origin: string): Promise<PerUserHeaderValues> {
    const owner = ownerOf(caller);
    if (!owner) throw identityRequired(config, "own headers");
    const values = valuesForKeys(await this.credentials.find(owner, config.id), config.perUserHeaderKeys);
    if (!values) throw await this.authRequired(config, owner, origin);
    return { owner, values };
  }

  /** Starts a flow for the owner and builds the error that points the caller at it. */
  async authRequired(config: McpClientConfig, owner: CredentialOwner, origin: string): Promise<GatewayError> {
    const flow = await this.flows.start(owner, config.id);
    const authorizeUrl = `${this.publicBaseUrl ?? origin}${FLOWS_PATH}/${flow.flowId}#t=${flow.tempToken}`;
    const message = `MCP client '${config.name}' needs your ${config.perUserHeaderKeys.join(", ")} header values: submit them at ${authorizeUrl} before ${flow.expiresAt.toISOString()}`;
    return new GatewayError({
      status: 401,
      errorType: "caller_mcp_auth_required",
      message,
      extra: {
        mcp_auth_required: { kind: "headers", mcp_client_id: config.id, mcp_client_name: config.name, message, authorize_url: authorizeUrl, session_id: flow.flowId },
      },
    });
  }
}
