import type { Principal } from "../access";
import { badRequest, GatewayError } from "../http/errors";
import { checkHost, type HostResolver, type OutboundPolicy } from "./host-check";

/** The deployment's side of the outbound address policy: how names resolve, and what the configuration file allows. */
export interface OutboundReach {
  resolve: HostResolver;
  /** `network.allow_private_addresses`: anyone who may write an address may point it at a private one. */
  configAllowsPrivate: boolean;
}

const PRIVATE_HINT = "only the admin may point the gateway at one, unless network.allow_private_addresses is set in the configuration file";

/** The policy a connection is made under: private addresses only when the address's writer was allowed them, or the configuration allows them. */
export const policyFor = (reach: OutboundReach, privateNetworkAllowed: boolean): OutboundPolicy => ({
  allowPrivateNetwork: privateNetworkAllowed || reach.configAllowsPrivate,
  resolve: reach.resolve,
  privateHint: PRIVATE_HINT,
});

/** Loopback and private addresses (local model servers, internal MCP servers) are the local admin's to configure, or anyone's where the configuration file says so. */
export const mayReachPrivateNetwork = (principal: Principal, reach: OutboundReach) => principal.localAdmin || reach.configAllowsPrivate;

const isUrl = (value: string) => /^https?:\/\//i.test(value);

/** Every http(s) URL in a written body, with the field it is in. */
export function* urlsIn(value: unknown, path = ""): Generator<{ url: string; param: string }> {
  if (typeof value === "string") {
    if (isUrl(value)) yield { url: value, param: path || "body" };
  } else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) yield* urlsIn(item, `${path}[${index}]`);
  } else if (value !== null && typeof value === "object") {
    for (const [field, item] of Object.entries(value)) yield* urlsIn(item, path ? `${path}.${field}` : field);
  }
}

/** Names are not looked up: the admin's addresses need no lookup to be checked where they are written. */
const noLookup = async () => [];

/**
 * The addresses a write gives the gateway to call, checked as its writer may have them: a
 * link-local, metadata or unroutable one is a 400 for everyone, a private or loopback one a 403
 * to a writer who may not reach them (their names are looked up to tell). A name that does not
 * resolve yet passes: every connection checks again. Answers whether the body carried any
 * address (its writer then decides the reach).
 */
export async function checkWrittenAddresses(body: unknown, principal: Principal, reach: OutboundReach): Promise<boolean> {
  let carried = false;
  const allowed = mayReachPrivateNetwork(principal, reach);
  for (const { url, param } of urlsIn(body)) {
    carried = true;
    if (!URL.canParse(url)) continue;
    const parsed = new URL(url);
    const check = await checkHost(parsed, allowed ? { ...policyFor(reach, true), resolve: noLookup } : policyFor(reach, false));
    if (check.ok || !check.refused) continue;
    const anyone = allowed ? check : await checkHost(parsed, policyFor(reach, true));
    if (!anyone.ok && anyone.refused) throw badRequest(`the address is not allowed: ${anyone.reason}`, param, "caller_address_refused");
    throw new GatewayError({ status: 403, errorType: "policy_private_address_refused", message: `the address is not allowed: ${check.reason}`, param });
  }
  return carried;
}

/** A 403 unless the writer may turn on a reach of private addresses (a webhook's `allow_private_network`). */
export function checkPrivateOptIn(principal: Principal, reach: OutboundReach, param: string): void {
  if (mayReachPrivateNetwork(principal, reach)) return;
  throw new GatewayError({ status: 403, errorType: "policy_private_address_refused", message: `${param}: ${PRIVATE_HINT}`, param });
}
