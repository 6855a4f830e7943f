import { GatewayError } from "../../http/errors";
import type { McpCaller } from "../caller";
import type { McpClientConfig } from "../clients/config";
import { describeError } from "../connection/upstream";
import type { McpOAuthConnections } from "../oauth/connections";
import type { GrantProvider } from "../oauth/provider";
import { callbackUrl } from "../oauth/routes";
import { identityRequired } from "./auth-required";
import { type CredentialOwner, ownerOf } from "./credentials";
import type { PerUserHeaderFlowStore } from "./flows";

/**
 * Per-user OAuth (`oauth.per_user`): each virtual key or MCP session connects its own account.
 * A caller without tokens gets `mcp_auth_required` (kind `oauth`) with the authorization server's
 * URL; the consent is a per-user flow like the header flows (same actor), whose `state` is the
 * flow's token and whose verification is the code exchange.
 */
export class PerUserOAuthResolver {
  constructor(
    private readonly connections: McpOAuthConnections,
    private readonly flows: PerUserHeaderFlowStore,
    private readonly publicBaseUrl: string | undefined,
  ) {}

  /** The caller's own provider, or 401 pointing at a new consent. */
  async providerFor(config: McpClientConfig, caller: McpCaller, origin: string): Promise<{ owner: CredentialOwner; provider: GrantProvider }> {
    const owner = ownerOf(caller);
    if (!owner) throw identityRequired(config, "own account");
    const provider = this.connections.providerFor(config, owner);
    if (!provider || !(await this.connections.hasTokens(config, owner))) throw await this.authRequired(config, owner, origin);
    return { owner, provider };
  }

  /** Starts a flow and its consent, and builds the error that sends the caller there. */
  async authRequired(config: McpClientConfig, owner: CredentialOwner, origin: string): Promise<GatewayError> {
    const flow = await this.flows.start(owner, config.id);
    const authorizeUrl = await this.connections.connect(config, callbackUrl(this.publicBaseUrl ?? origin), owner, flow.tempToken);
    const message = `MCP client '${config.name}' acts as each caller's own account: open ${authorizeUrl} and consent before ${flow.expiresAt.toISOString()}, then call again`;
    return new GatewayError({
      status: 401,
      errorType: "caller_mcp_auth_required",
      message,
      extra: { mcp_auth_required: { kind: "oauth", mcp_client_id: config.id, mcp_client_name: config.name, message, authorize_url: authorizeUrl, session_id: flow.flowId } },
    });
  }
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** What the person who consented sees: they came from a tool call, not from the dashboard. */
function resultPage(status: number, title: string, message: string): Response {
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></body></html>`;
  return new Response(body, { status, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" } });
}

/** The callback of a per-user consent: the flow's actor verifies it by exchanging the code; the flow ends consumed. */
export const completePerUserOAuth =
  (flows: PerUserHeaderFlowStore) =>
  async (state: string, code: string, config: McpClientConfig, owner: CredentialOwner): Promise<Response> => {
    const row = await flows.findFor(owner, config.id);
    const expired = () => resultPage(410, "This consent has expired", `Call the tool of MCP client '${config.name}' again for a new link.`);
    if (!row || flows.stateOf(row) === "expired") return expired();
    const outcome = await flows.submit(row, { state, code });
    if (outcome.state === "expired") return expired();
    if (outcome.state !== "consumed") return resultPage(502, "The connection failed", `MCP client '${config.name}': ${describeError(outcome.refusal)}`);
    await flows.remove(row.id);
    return resultPage(200, "Connected", `MCP client '${config.name}' now acts as your account. Close this page and call the tool again.`);
  };
