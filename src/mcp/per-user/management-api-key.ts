import { API_KEY_PREFIX, type ApiKeyLookup } from "../../access/api-keys/store";
import { permissionId } from "../../access/permissions";
import { GatewayError } from "../../http/errors";

export type LookupApiKey = (presented: string) => Promise<ApiKeyLookup>;

const REFUSED_HEADERS = ["x-api-key", "x-gw-vk", "x-goog-api-key"];
const SUBMIT_PERMISSION = "MCP:Update";

const unauthenticated = (message: string, errorType: `caller_${string}` = "caller_management_api_key_required") => new GatewayError({ status: 401, errorType, message });

/**
 * Spec 5.3: the per-user header submission takes only `Authorization: Bearer <management API
 * key>`. Virtual keys, dashboard and session tokens, basic credentials and x-api-key are refused;
 * the key must carry MCP:Update (spec 5.4).
 */
export async function requireManagementApiKey(headers: Headers, lookup: LookupApiKey): Promise<void> {
  if (REFUSED_HEADERS.some((name) => headers.has(name))) throw unauthenticated("this endpoint accepts only Authorization: Bearer <management API key>; x-api-key and virtual keys are refused");
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.get("authorization") ?? "")?.[1];
  if (!bearer?.startsWith(API_KEY_PREFIX)) throw unauthenticated("this endpoint accepts only Authorization: Bearer <management API key>");
  const found = await lookup(bearer);
  if (found.status === "expired") throw unauthenticated("the API key has expired", "caller_api_key_expired");
  if (found.status !== "live") throw unauthenticated("the API key is invalid", "caller_invalid_credentials");
  if (!found.key.scopes.includes(permissionId(SUBMIT_PERMISSION))) {
    throw new GatewayError({ status: 403, errorType: "policy_permission_denied", message: `missing permission ${SUBMIT_PERMISSION}` });
  }
}
