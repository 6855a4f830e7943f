import { BlockList, isIP } from "node:net";

/** What kind of network an address belongs to, as far as the gateway's outbound calls are concerned. */
export type AddressClass = "public" | "private" | "loopback" | "cgnat" | "link_local" | "metadata" | "unroutable";

type Range = readonly [network: string, prefix: number];

/** Checked in this order: the first class whose ranges hold the address wins. */
const RANGES: ReadonlyArray<readonly [Exclude<AddressClass, "public">, ReadonlyArray<Range>]> = [
  // Cloud instance metadata services: AWS/GCP/Azure, Alibaba (inside CGNAT space), AWS over IPv6.
  ["metadata", [["169.254.169.254", 32], ["100.100.100.200", 32], ["fd00:ec2::254", 128]]],
  ["link_local", [["169.254.0.0", 16], ["fe80::", 10]]],
  // Unspecified, multicast, reserved, and the ranges kept for documentation and protocol assignments.
  [
    "unroutable",
    [
      ["0.0.0.0", 8],
      ["224.0.0.0", 4],
      ["240.0.0.0", 4],
      ["192.0.0.0", 24],
      ["192.0.2.0", 24],
      ["198.51.100.0", 24],
      ["203.0.113.0", 24],
      ["::", 128],
      ["ff00::", 8],
      ["2001:db8::", 32],
    ],
  ],
  ["loopback", [["127.0.0.0", 8], ["::1", 128]]],
  ["cgnat", [["100.64.0.0", 10]]],
  ["private", [["10.0.0.0", 8], ["172.16.0.0", 12], ["192.168.0.0", 16], ["198.18.0.0", 15], ["fc00::", 7]]],
];

const BLOCKS = RANGES.map(([kind, ranges]) => {
  const list = new BlockList();
  for (const [network, prefix] of ranges) list.addSubnet(network, prefix, isIP(network) === 6 ? "ipv6" : "ipv4");
  return [kind, list] as const;
});

/** Never reachable, by anyone, whatever the configuration says. */
export const ALWAYS_REFUSED: ReadonlySet<AddressClass> = new Set(["metadata", "link_local", "unroutable"]);

/** The class as a message names it: `link-local`, `metadata`, ... */
export const classLabel = (kind: AddressClass) => kind.replace("_", "-");

/** The class with its article, as a sentence names it: `an unroutable`, `a link-local`. */
export const aClassOf = (kind: AddressClass) => `${/^[aeiou]/.test(kind) ? "an" : "a"} ${classLabel(kind)}`;

/** The eight 16-bit groups of an IPv6 address (already validated by `isIP`). */
function hextets(address: string): number[] {
  let text = address.toLowerCase().replace(/%.*$/, "");
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const parse = (part: string) => (part ? part.split(":").map((group) => Number.parseInt(group, 16)) : []);
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** The IPv4 address an IPv6 one carries: mapped, compatible, NAT64 (64:ff9b::/96) or 6to4 (2002::/16). */
function embeddedIPv4(address: string): string | undefined {
  const groups = hextets(address);
  const quad = (high: number, low: number) => [high >> 8, high & 255, low >> 8, low & 255].join(".");
  const zeros = (from: number, to: number) => groups.slice(from, to).every((group) => group === 0);
  if (zeros(0, 5) && groups[5] === 0xffff) return quad(groups[6]!, groups[7]!);
  if (zeros(0, 6) && (groups[6]! > 0 || groups[7]! > 1)) return quad(groups[6]!, groups[7]!);
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6)) return quad(groups[6]!, groups[7]!);
  if (groups[0] === 0x2002) return quad(groups[1]!, groups[2]!);
  return undefined;
}

/** Classes of addresses already seen: a gateway calls a handful of addresses again and again. */
const KNOWN_CLASSES = new Map<string, AddressClass>();
const KNOWN_CLASSES_LIMIT = 1024;

export function classifyAddress(address: string): AddressClass {
  const known = KNOWN_CLASSES.get(address);
  if (known) return known;
  const kind = classifyUncached(address);
  if (KNOWN_CLASSES.size >= KNOWN_CLASSES_LIMIT) KNOWN_CLASSES.clear();
  KNOWN_CLASSES.set(address, kind);
  return kind;
}

function classifyUncached(address: string): AddressClass {
  const family = isIP(address);
  if (family === 0) throw new Error(`'${address}' is not an IP address`);
  if (family === 6) {
    const inner = embeddedIPv4(address);
    if (inner) return classifyUncached(inner);
  }
  const type = family === 6 ? "ipv6" : "ipv4";
  return BLOCKS.find(([, list]) => list.check(address, type))?.[0] ?? "public";
}

/** Why a call to this address is refused, or undefined when it may be made; `privateHint` says how private addresses are allowed. */
export function refusalOf(address: string, allowPrivateNetwork: boolean, privateHint: string): string | undefined {
  const kind = classifyAddress(address);
  if (kind === "public") return undefined;
  if (ALWAYS_REFUSED.has(kind)) return `${address} is ${aClassOf(kind)} address, which is never allowed`;
  if (!allowPrivateNetwork) return `${address} is ${aClassOf(kind)} address; ${privateHint}`;
  return undefined;
}
