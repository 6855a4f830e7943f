import { isIP } from "node:net";
import { bareHost, checkHost, type OutboundPolicy, type ResolvedAddress, systemAnswerKeptUntil, systemResolver } from "./host-check";

/** A call the outbound address policy refused; its message says which address and why. */
export class OutboundRefused extends Error {}

const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** The URL aimed at the address that was checked, so a second DNS answer cannot redirect the call. */
export function pinnedUrl(url: URL, address: ResolvedAddress): URL {
  const target = new URL(url);
  target.hostname = address.family === 6 ? `[${address.address}]` : address.address;
  return target;
}

/** The headers of `init` with the URL's own Host, copied as cheaply as their shape allows. */
function withHost(headers: RequestInit["headers"], url: URL): RequestInit["headers"] {
  if (headers === undefined || (typeof headers === "object" && !Array.isArray(headers) && !(headers instanceof Headers))) {
    // Header names are case-insensitive: a `Host` given in the record gives way too.
    const record: Record<string, string | readonly string[]> = {};
    for (const [name, value] of Object.entries(headers ?? {})) if (name.toLowerCase() !== "host") record[name] = value;
    record.host = url.host;
    return record;
  }
  const copy = new Headers(headers);
  copy.set("host", url.host);
  return copy;
}

/**
 * The URL and init for one hop to `url`, aimed at `address`: the Host header and TLS name stay
 * the URL's. A URL that names its address already is called as it is.
 */
function pinnedCall(url: URL, address: ResolvedAddress, init: RequestInit): [URL, RequestInit] {
  if (bareHost(url) === address.address) return [url, { ...init, redirect: "manual" }];
  return [pinnedUrl(url, address), { ...init, headers: withHost(init.headers, url), redirect: "manual", tls: { serverName: bareHost(url) } } as RequestInit];
}

async function checkedAddress(url: URL, policy: OutboundPolicy): Promise<ResolvedAddress> {
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new OutboundRefused(`${url.protocol} URLs are not allowed: only http and https`);
  const check = await checkHost(url, policy);
  if (check.ok) return check.address;
  if (check.refused) throw new OutboundRefused(`the address is not allowed: ${check.reason}`);
  throw new Error(check.reason);
}

/** A URL's check as a later call to it reuses it: the parsed URL and the address it passed with; for a name, the name and until when the answer checked is kept. */
interface KeptCheck {
  url: URL;
  address: ResolvedAddress;
  name?: { host: string; until: number };
}

const CHECKS_KEPT = 255;
const keptChecks = new WeakMap<OutboundPolicy, Map<string, KeptCheck>>();

/**
 * A provider's every request goes to the same few URLs under the same policy: their checks are
 * kept, so a request pays no URL parse, lookup or promise for them. An address in the URL is kept
 * for good (the policy object changes when its reach does). A name is kept only under the system
 * resolver, and only as long as it keeps the answer that was checked, so a changed answer is seen
 * as soon as before; under any other resolver (tests point names anywhere) it is looked up on
 * each call.
 */
function keptCheck(input: string | URL, policy: OutboundPolicy): KeptCheck | undefined {
  const kept = typeof input === "string" ? keptChecks.get(policy)?.get(input) : undefined;
  if (!kept?.name) return kept;
  // A name's check holds while the resolver keeps that very answer: not once it expired, made room for others or was asked again.
  const { host, until } = kept.name;
  return until > Date.now() && systemAnswerKeptUntil(host) === until ? kept : undefined;
}

function keepCheck(input: string | URL, policy: OutboundPolicy, url: URL, address: ResolvedAddress): void {
  if (typeof input !== "string") return;
  const host = bareHost(url);
  const literal = isIP(host) !== 0;
  if (!literal && policy.resolve !== systemResolver) return;
  let kept = keptChecks.get(policy);
  if (!kept) keptChecks.set(policy, (kept = new Map()));
  if (kept.size >= CHECKS_KEPT) kept.delete(kept.keys().next().value!);
  kept.set(input, { url, address, name: literal ? undefined : { host, until: systemAnswerKeptUntil(host) } });
}

const redirectTarget = (response: Response, url: URL) => {
  const location = response.headers.get("location");
  return REDIRECTS.has(response.status) && location ? new URL(location, url) : undefined;
};

/**
 * fetch() under the outbound address policy: every address the host resolves to must pass, and
 * the connection goes to the address that was checked. Redirects of GET and HEAD are followed
 * (at most five, unless the caller asked for none), each hop checked the same way; any other
 * redirect comes back as it is.
 */
export function guardedFetch(input: string | URL, init: RequestInit, policy: OutboundPolicy): Promise<Response> {
  const kept = keptCheck(input, policy);
  const method = (init.method ?? "GET").toUpperCase();
  const follows = init.redirect !== "manual" && init.redirect !== "error" && (method === "GET" || method === "HEAD");
  // A provider's POST to a URL already checked is one fetch: no async step of its own on every call.
  if (kept && !follows) {
    const [target, hopInit] = pinnedCall(kept.url, kept.address, init);
    return fetch(target, hopInit);
  }
  return fetchedFollowing(input, init, policy, kept, follows);
}

async function fetchedFollowing(input: string | URL, init: RequestInit, policy: OutboundPolicy, kept: KeptCheck | undefined, follows: boolean): Promise<Response> {
  let url = kept?.url ?? new URL(input);
  for (let hop = 0; ; hop++) {
    let address = kept?.address;
    if (!address) {
      address = await checkedAddress(url, policy);
      if (hop === 0) keepCheck(input, policy, url, address);
    }
    kept = undefined;
    const [target, hopInit] = pinnedCall(url, address, init);
    const response = await fetch(target, hopInit);
    const next = follows && hop < MAX_REDIRECTS ? redirectTarget(response, url) : undefined;
    if (!next) return response;
    await response.body?.cancel();
    url = next;
  }
}

/** guardedFetch as a `fetch` for libraries that take one (the MCP SDK's transports). */
export const fetchUnder =
  (policy: OutboundPolicy) =>
  (input: string | URL, init?: RequestInit): Promise<Response> =>
    guardedFetch(input, init ?? {}, policy);
