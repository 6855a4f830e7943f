import { BlockList, isIP } from "node:net";
import { ConfigError } from "../config/load";
import { ALWAYS_REFUSED, aClassOf, classifyAddress } from "../outbound/address-classes";

const familyOf = (address: string) => (isIP(address) === 6 ? "ipv6" : "ipv4");

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

/**
 * Why a download may not reach `address`, or undefined when it may: the outbound address
 * policy's classes, stricter for code: only public addresses and those the allow-list names,
 * and never a link-local, metadata or unroutable one.
 */
export function refusalFor(host: string, address: string, allowlist: AddressAllowlist): string | undefined {
  const kind = classifyAddress(address);
  const alwaysRefused = ALWAYS_REFUSED.has(kind);
  if (kind === "public" || (!alwaysRefused && allowlist.allows(address))) return undefined;
  const what = host === address ? `${address}:` : `${host}: it resolves to ${address},`;
  return `refused to download from ${what} ${aClassOf(kind)} address ${alwaysRefused ? "which is never allowed" : "not listed in server.plugin_download_private_allowlist"}`;
}
