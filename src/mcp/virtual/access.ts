import { GatewayError } from "../../http/errors";
import { type CallerAuth, callContextOf } from "../call-context";
import { type McpCaller, MCP_SESSION_HEADER } from "../caller";
import type { CallContext } from "../tools/executor";
import { toolFilterOf } from "../tools/filter";
import type { VirtualBundle } from "./bundle";

/** The dashboard user behind a request's session token (`Authorization: Bearer gws_...`), if any. */
export type SessionUserOf = (request: Request) => Promise<{ id: string; roleId: number } | undefined>;

const refused = (bundle: VirtualBundle, who: string) =>
  new GatewayError({ status: 403, errorType: "policy_mcp_virtual_server_not_allowed", message: `${who} may not connect to virtual server '${bundle.slug}'` });

/** A server that names anyone admits those only: a caller with no key (and no admitted user) gets 401, another key 403. */
function checkVirtualKey(bundle: VirtualBundle, caller: McpCaller): void {
  const { virtual_key_ids, role_ids, user_ids } = bundle.access;
  if (virtual_key_ids.length + role_ids.length + user_ids.length === 0) return;
  if (!caller.virtualKey) {
    const message = `virtual server '${bundle.slug}' admits only the virtual keys, roles and users it names: send a virtual key (x-gw-vk or Authorization: Bearer sk-gw-...) or a dashboard session token`;
    throw new GatewayError({ status: 401, errorType: "caller_virtual_key_required", message });
  }
  if (!virtual_key_ids.includes(caller.virtualKey.id)) throw refused(bundle, `virtual key '${caller.virtualKey.name}'`);
}

/**
 * Who calls a virtual server, refused unless its access admits them: a dashboard user by id or
 * role (with their session token), otherwise the caller /mcp would see, by virtual key.
 */
export async function virtualServerContext(request: Request, bundle: VirtualBundle, auth: CallerAuth, sessionUser?: SessionUserOf): Promise<CallContext> {
  const { role_ids, user_ids } = bundle.access;
  const user = role_ids.length + user_ids.length > 0 ? await sessionUser?.(request) : undefined;
  if (user) {
    if (!user_ids.includes(user.id) && !role_ids.includes(user.roleId)) throw refused(bundle, `user '${user.id}'`);
    const caller = { user, sessionId: request.headers.get(MCP_SESSION_HEADER) ?? undefined };
    return { caller, filter: { ...toolFilterOf(request.headers, undefined), virtual: bundle }, source: "mcp_server", origin: new URL(request.url).origin };
  }
  const context = await callContextOf(request, auth, "mcp_server");
  checkVirtualKey(bundle, context.caller);
  context.filter.virtual = bundle;
  return context;
}
