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

/** Schemes the gateway connects to: the ones a written address is judged for. */
const CONNECTED_SCHEMES = new Set(["http:", "https:", "ws:", "wss:"]);

/**
 * The address a string names, read by the WHATWG URL parser fetch uses: `http:10.0.0.1/v1`,
 * `http:/10.0.0.1`, ` http://…` and `ht\ttp://…` are all addresses to it, so to the check too.
 */
export function connectedUrl(value: string): URL | undefined {
  const url = URL.parse(value);
  return url && CONNECTED_SCHEMES.has(url.protocol) ? url : undefined;
}

/**
 * The URL as the parser reads it (`url.href`), without the `/` it adds after a bare host when
 * the writer gave none (a base URL is joined to paths).
 */
export function normalisedUrl(url: URL, written: string): string {
  const bare = url.pathname === "/" && !url.search && !url.hash && !written.trimEnd().endsWith("/");
  return bare ? url.href.slice(0, -1) : url.href;
}

interface WrittenUrl {
  url: URL;
  param: string;
  /** Puts the normalised URL in place of the written one. */
  normalise(): void;
}

/** Every address in a written body, with the field it is in. */
export function* urlsIn(value: unknown, path = ""): Generator<WrittenUrl> {
  if (value === null || typeof value !== "object") return;
  const entries: Iterable<[string | number, unknown]> = Array.isArray(value) ? value.entries() : Object.entries(value);
  for (const [field, item] of entries) {
    const param = typeof field === "number" ? `${path}[${field}]` : path ? `${path}.${field}` : field;
    const url = typeof item === "string" ? connectedUrl(item) : undefined;
    if (url) yield { url, param, normalise: () => ((value as Record<string | number, unknown>)[field] = normalisedUrl(url, item as string)) };
    else yield* urlsIn(item, param);
  }
}

/** Names are not looked up: the admin's addresses need no lookup to be checked where they are written. */
const noLookup = async () => [];

/**
 * The addresses a write gives the gateway to call, checked as its writer may have them: a
 * link-local, metadata or unroutable one is a 400 for everyone, a private or loopback one a 403
 * to a writer who may not reach them (their names are looked up to tell). A name that does not
 * resolve yet passes: every connection checks again. Each address is left in the body as the
 * URL parser reads it, so what is stored is what was checked. Answers whether the body carried
 * any address (its writer then decides the reach).
 */
export async function checkWrittenAddresses(body: unknown, principal: Principal, reach: OutboundReach): Promise<boolean> {
  let carried = false;
  const allowed = mayReachPrivateNetwork(principal, reach);
  for (const { url: parsed, param, normalise } of urlsIn(body)) {
    carried = true;
    normalise();
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

/**
 * One address the gateway will call under its own opt-in (a guardrail's `http` check), as the
 * URL parser reads it: a 400 naming `param` when it is no http(s) URL or a policy refuses its
 * host (a metadata address always; a private one unless `allowPrivateNetwork`). Answers the
 * normalised URL to store.
 */
export async function checkOptedInAddress(raw: string, allowPrivateNetwork: boolean, reach: OutboundReach, param: string): Promise<string> {
  const url = connectedUrl(raw);
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) throw badRequest(`'${raw}' is not an http(s) URL`, param);
  const check = await checkHost(url, policyFor(reach, allowPrivateNetwork));
  if (!check.ok && check.refused) throw badRequest(`the address is not allowed: ${check.reason}`, param, "caller_address_refused");
  return normalisedUrl(url, raw);
}
