import { BlockList, isIP } from "node:net";
import { ConfigError } from "../config/load";

export type AddressClass = "public" | "loopback" | "unspecified" | "private" | "link-local" | "cgnat" | "multicast" | "reserved";

type Subnet = readonly [network: string, prefix: number];

/**
 * Every address a plugin download may not reach by default, by class. IPv4-mapped IPv6
 * addresses (::ffff:a.b.c.d) are matched against the IPv4 rules; NAT64, 6to4 and
 * IPv4-compatible prefixes embed an IPv4 address and are refused as reserved.
 */
const NON_PUBLIC: ReadonlyArray<readonly [Exclude<AddressClass, "public">, readonly Subnet[]]> = [
  ["loopback", [["127.0.0.0", 8], ["::1", 128]]],
  ["unspecified", [["0.0.0.0", 8], ["::", 128]]],
  ["private", [["10.0.0.0", 8], ["172.16.0.0", 12], ["192.168.0.0", 16], ["fc00::", 7]]],
  ["link-local", [["169.254.0.0", 16], ["fe80::", 10]]],
  ["cgnat", [["100.64.0.0", 10]]],
  ["multicast", [["224.0.0.0", 4], ["ff00::", 8]]],
  [
    "reserved",
    [
      ["192.0.0.0", 24],
      ["192.0.2.0", 24],
      ["198.18.0.0", 15],
      ["198.51.100.0", 24],
      ["203.0.113.0", 24],
      ["240.0.0.0", 4],
      ["::", 96],
      ["64:ff9b::", 96],
      ["64:ff9b:1::", 48],
      ["2002::", 16],
      ["2001:db8::", 32],
    ],
  ],
];

const familyOf = (address: string) => (isIP(address) === 6 ? "ipv6" : "ipv4");

function blockListOf(subnets: readonly Subnet[]): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of subnets) list.addSubnet(network, prefix, familyOf(network));
  return list;
}

const CLASSES = NON_PUBLIC.map(([name, subnets]) => [name, blockListOf(subnets)] as const);

/** The class of an IP address; anything not listed above is public. */
export function classifyAddress(address: string): AddressClass {
  const family = familyOf(address);
  return CLASSES.find(([, list]) => list.check(address, family))?.[0] ?? "public";
}

/** IP addresses and CIDR ranges from a config list (`server.plugin_download_private_allowlist`, ...). */
export class AddressAllowlist {
  private readonly list = new BlockList();
  readonly isEmpty: boolean;

  constructor(
    entries: readonly string[] = [],
    private readonly field = "server.plugin_download_private_allowlist",
  ) {
    for (const [index, entry] of entries.entries()) this.add(entry.trim(), index);
    this.isEmpty = entries.length === 0;
  }

  allows(address: string): boolean {
    return this.list.check(address, familyOf(address));
  }

  private add(entry: string, index: number) {
    const [network = "", prefixText] = entry.split("/");
    const version = isIP(network);
    const maxPrefix = version === 6 ? 128 : 32;
    const prefix = prefixText === undefined ? maxPrefix : Number(prefixText);
    if (version === 0 || !Number.isInteger(prefix) || prefix < 0 || prefix > maxPrefix) {
      throw new ConfigError(`config: field '${this.field}[${index}]': '${entry}' is not an IP address or CIDR range`);
    }
    this.list.addSubnet(network, prefix, version === 6 ? "ipv6" : "ipv4");
  }
}

/** Why a download may not reach `address`, or undefined when it may. */
export function refusalFor(host: string, address: string, allowlist: AddressAllowlist): string | undefined {
  const kind = classifyAddress(address);
  if (kind === "public" || allowlist.allows(address)) return undefined;
  const what = host === address ? `${address}:` : `${host}: it resolves to ${address},`;
  const article = /^[aeiou]/.test(kind) ? "an" : "a";
  return `refused to download from ${what} ${article} ${kind} address not listed in server.plugin_download_private_allowlist`;
}
