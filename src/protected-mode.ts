import { isIP } from "node:net";
import { classifyAddress } from "./outbound/address-classes";

/** Where the gateway listens, and whether its operator chose to serve inference without a virtual key there. */
export interface Exposure {
  host: string;
  /** allow_open_inference, or GATEWAY_ALLOW_OPEN_INFERENCE=true. */
  allowOpenInference: boolean;
}

const isLoopback = (host: string) => {
  const bare = host.replace(/^\[(.*)\]$/, "$1");
  if (bare === "localhost") return true;
  return isIP(bare) !== 0 && classifyAddress(bare) === "loopback";
};

/**
 * Reachable by others with inference open, anyone who can reach the port spends the provider
 * keys: that takes a choice made on purpose.
 */
export const needsAChoice = ({ host, allowOpenInference }: Exposure, inferenceNeedsVirtualKey: boolean) => !isLoopback(host) && !inferenceNeedsVirtualKey && !allowOpenInference;

export const startRefusal = (host: string) =>
  [
    `refusing to start: listening on ${host}, reachable from other machines, with inference open to anyone who reaches the port (no virtual key needed), which spends the provider keys.`,
    "Choose one:",
    '  - require a virtual key on every inference call: "enforce_auth_on_inference": true in config.json (or PUT /api/config on a loopback start);',
    '  - keep inference open on purpose: "allow_open_inference": true in config.json, or GATEWAY_ALLOW_OPEN_INFERENCE=true;',
    "  - or listen on loopback only: --host 127.0.0.1.",
  ].join("\n");

export const openingRefusal = (host: string) =>
  `inference cannot be opened while the gateway listens on ${host}, reachable from other machines: set "allow_open_inference": true in config.json (or GATEWAY_ALLOW_OPEN_INFERENCE=true) and restart to serve inference without a virtual key there`;
