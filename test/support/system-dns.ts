import { mock } from "bun:test";
import * as dns from "node:dns/promises";

type LookupOptions = { all?: boolean; verbatim?: boolean; family?: number };
type Answer = { address: string; family: 4 | 6 };

const table = new Map<string, string[]>();
const asked: string[] = [];
const realLookup = dns.lookup;
let installed = false;

const notFound = (hostname: string) => Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND", syscall: "getaddrinfo", hostname });

/** As getaddrinfo answers: in the table's order when `verbatim`, IPv4 first otherwise; one address unless `all`. */
async function lookup(hostname: string, options: LookupOptions = {}) {
  if (!hostname.endsWith(".test")) return realLookup(hostname, options as never);
  asked.push(hostname);
  await Promise.resolve();
  const addresses = table.get(hostname);
  if (!addresses?.length) throw notFound(hostname);
  const answers: Answer[] = addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  const ordered = options.verbatim ? answers : [...answers].sort((a, b) => a.family - b.family);
  return options.all ? ordered : ordered[0];
}

/**
 * The operating system's resolver (`lookup` of `node:dns/promises`, which the gateway calls for
 * every name when no test injects a resolver) answering names under `.test`, the reserved
 * domain no real DNS answers, from one table, and counting the questions. Other names still go
 * to the system. Bun's module mocks last for the whole test process, so it is installed once
 * and its table is shared: each file uses names of its own.
 */
export function fakeSystemDns() {
  if (!installed) {
    mock.module("node:dns/promises", () => ({ ...dns, lookup, default: { ...dns, lookup } }));
    installed = true;
  }
  return {
    table,
    /** How many times the system was asked for this name. */
    asked: (hostname: string) => asked.filter((name) => name === hostname).length,
  };
}
