import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { refusalOf } from "./address-classes";

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to its addresses; injectable so tests can answer with any address. */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

const systemLookup: HostResolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));

const CACHE_MS = 30_000;
const CACHE_ENTRIES = 255;

/**
 * The system's answers, kept 30 s (as Bun keeps its own for fetch) and shared by concurrent
 * lookups: a provider call to a name pays no lookup of its own. A kept answer is safe against
 * rebinding, as the connection goes to the address checked from it. Failures are not kept.
 */
function cachedLookup() {
  const answers = new Map<string, { until: number; addresses: Promise<ResolvedAddress[]> }>();
  const resolve: HostResolver = (hostname) => {
    const kept = answers.get(hostname);
    if (kept && kept.until > Date.now()) return kept.addresses;
    if (answers.size >= CACHE_ENTRIES) answers.delete(answers.keys().next().value!);
    const addresses = systemLookup(hostname);
    answers.set(hostname, { until: Date.now() + CACHE_MS, addresses });
    addresses.catch(() => answers.delete(hostname));
    return addresses;
  };
  /** Until when the answer for `hostname` is kept (0 when none is). */
  const keptUntil = (hostname: string) => answers.get(hostname)?.until ?? 0;
  return { resolve, keptUntil };
}

const systemLookups = cachedLookup();
export const systemResolver: HostResolver = systemLookups.resolve;
/** Until when the system resolver keeps its answer for a name: a check made from that answer holds as long. */
export const systemAnswerKeptUntil = systemLookups.keptUntil;

/** Names that mean this machine or a metadata service whatever DNS says. */
const SPECIAL_NAMES: ReadonlyArray<readonly [RegExp, string]> = [
  [/(^|\.)localhost\.?$/i, "127.0.0.1"],
  [/^metadata(\.google\.internal)?\.?$/i, "169.254.169.254"],
];

/** The URL's host without IPv6 brackets. */
export function bareHost(url: URL): string {
  const host = url.hostname;
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

/** `refused`: the policy said no; otherwise the host could not be resolved. */
export type HostCheck = { ok: true; address: ResolvedAddress } | { ok: false; refused: boolean; reason: string };

/** How an outbound call may be made: which addresses it may reach, and how names are resolved. */
export interface OutboundPolicy {
  /** Loopback, private and CGNAT addresses may be reached; link-local, metadata and unroutable ones never are. */
  allowPrivateNetwork: boolean;
  resolve: HostResolver;
  /** What the refusal of a private address tells the caller to do about it. */
  privateHint: string;
}

/**
 * Resolves the URL's host and checks every address it has: one refused address refuses the host
 * (a DNS answer cannot smuggle a metadata address in beside a public one). The caller connects
 * to the returned address, so the checked address is the one called (no DNS rebinding between
 * check and connect).
 */
export async function checkHost(url: URL, policy: OutboundPolicy): Promise<HostCheck> {
  const host = bareHost(url);
  const family = isIP(host);
  const special = family ? undefined : SPECIAL_NAMES.find(([pattern]) => pattern.test(host))?.[1];
  let addresses: ResolvedAddress[];
  if (family) addresses = [{ address: host, family: family === 6 ? 6 : 4 }];
  else if (special) addresses = [{ address: special, family: 4 }];
  else {
    try {
      addresses = await policy.resolve(host);
    } catch (error) {
      return { ok: false, refused: false, reason: `could not resolve ${host}: ${error instanceof Error ? error.message : String(error)}` };
    }
  }
  if (addresses.length === 0) return { ok: false, refused: false, reason: `${host} has no address` };
  for (const { address } of addresses) {
    const refusal = refusalOf(address, policy.allowPrivateNetwork, policy.privateHint);
    if (refusal) return { ok: false, refused: true, reason: family ? refusal : `${host} resolves to ${address}: ${refusal}` };
  }
  return { ok: true, address: addresses[0]! };
}
