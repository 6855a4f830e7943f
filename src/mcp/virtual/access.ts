import { GatewayError } from "../../http/errors";
import type { McpCaller } from "../caller";
import type { VirtualBundle } from "./bundle";

/** Whether the caller may connect: a server that names its virtual keys admits those keys only. */
export function checkVirtualServerAccess(bundle: VirtualBundle, caller: McpCaller): void {
  const keys = bundle.access.virtual_key_ids;
  if (keys.length === 0) return;
  if (!caller.virtualKey) throw new GatewayError({ status: 401, errorType: "caller_virtual_key_required", message: `virtual server '${bundle.slug}' admits only the virtual keys it names: send one (x-gw-vk or Authorization: Bearer sk-gw-...)` });
  if (!keys.includes(caller.virtualKey.id)) {
    throw new GatewayError({ status: 403, errorType: "policy_mcp_virtual_server_not_allowed", message: `virtual key '${caller.virtualKey.name}' may not connect to virtual server '${bundle.slug}'` });
  }
}
