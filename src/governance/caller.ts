import type { CustomerRow, TeamRow, VirtualKeyRow } from "../db/schema";
import { GatewayError } from "../http/errors";
import type { CallerIdentity } from "../inference/hooks";
import type { Organization } from "./stores/organization";
import { VIRTUAL_KEY_PREFIX } from "../db/schema/types";
import type { VirtualKeyStore } from "./stores/virtual-keys";

/** A virtual key with the team and customer it answers to. */
export interface Caller {
  key: VirtualKeyRow;
  team?: TeamRow;
  customer?: CustomerRow;
}

const BEARER = /^bearer\s+/i;

/**
 * The virtual key a request presents: `x-gw-vk` whatever its value, or an `sk-gw-` value in
 * `Authorization: Bearer`, `x-api-key`, Azure's `api-key` or `x-goog-api-key`. Anything else in
 * those headers is a provider's own key, not a virtual key, and is left alone.
 */
export function presentedVirtualKey(headers: Headers): string | undefined {
  const explicit = headers.get("x-gw-vk");
  if (explicit !== null) return explicit.trim();
  const candidates = [headers.get("authorization")?.replace(BEARER, ""), headers.get("x-api-key"), headers.get("api-key"), headers.get("x-goog-api-key")];
  return candidates.map((value) => value?.trim()).find((value) => value?.startsWith(VIRTUAL_KEY_PREFIX));
}

const unauthorized = (errorType: `caller_${string}`, message: string) => new GatewayError({ status: 401, errorType, message });

/**
 * The caller behind a request's virtual key. None is needed unless `required`; a key that is
 * presented must be known and active either way.
 */
export function authenticateCaller(headers: Headers, keys: VirtualKeyStore, organization: Organization, required: boolean): Caller | undefined {
  const value = presentedVirtualKey(headers);
  if (!value) {
    if (required) throw unauthorized("caller_virtual_key_required", "a virtual key is required: send it in x-gw-vk or as Authorization: Bearer sk-gw-...");
    return undefined;
  }
  return callerOfKey(keys.findByValue(value), organization);
}

/** The caller a request runs as when an in-process caller names the key by id (the playground): checked as a presented key is. */
export const actingCaller = (id: string, keys: VirtualKeyStore, organization: Organization): Caller => callerOfKey(keys.keys.get(id), organization);

function callerOfKey(key: VirtualKeyRow | undefined, organization: Organization): Caller {
  if (!key) throw unauthorized("caller_virtual_key_invalid", "the virtual key is not valid");
  if (!key.isActive) throw new GatewayError({ status: 403, errorType: "caller_virtual_key_inactive", message: `virtual key '${key.name}' is inactive` });
  const team = key.teamId ? organization.teams.get(key.teamId) : undefined;
  const customerId = key.customerId ?? team?.customerId;
  return { key, team, customer: customerId ? organization.customers.get(customerId) : undefined };
}

export const callerIdentity = (caller: Caller): CallerIdentity => ({
  virtualKeyId: caller.key.id,
  virtualKeyName: caller.key.name,
  teamId: caller.team?.id,
  customerId: caller.customer?.id,
  ...(caller.key.resumableStreams ? { resumableStreams: true } : {}),
});
