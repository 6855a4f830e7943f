import { isIP } from "node:net";
import { classifyAddress } from "../webhooks/address-guard";

export interface ExposureChoice {
  /** The address the gateway is about to listen on. */
  host: string;
  /** enforce_auth_on_inference as the gateway runs with it (config.json, or a change PUT /api/config stored). */
  inferenceNeedsVirtualKey: boolean;
  /** allow_open_inference: the operator's explicit choice to serve inference without a virtual key. */
  allowOpenInference: boolean;
}

const isLoopback = (host: string) => {
  const bare = host.replace(/^\[(.*)\]$/, "$1");
  if (bare === "localhost") return true;
  return isIP(bare) !== 0 && classifyAddress(bare) === "loopback";
};

/**
 * Why the gateway must not start, or undefined. Reachable by others with inference open, anyone
 * who can reach the port spends the provider keys, so that takes a choice made on purpose.
 */
export function openInferenceRefusal({ host, inferenceNeedsVirtualKey, allowOpenInference }: ExposureChoice): string | undefined {
  if (isLoopback(host) || inferenceNeedsVirtualKey || allowOpenInference) return undefined;
  return [
    `refusing to start: listening on ${host}, reachable from other machines, with inference open to anyone who reaches the port (no virtual key needed), which spends the provider keys.`,
    "Choose one:",
    '  - require a virtual key on every inference call: "enforce_auth_on_inference": true in config.json (or PUT /api/config on a loopback start);',
    '  - keep inference open on purpose: "allow_open_inference": true in config.json, or GATEWAY_ALLOW_OPEN_INFERENCE=true;',
    "  - or listen on loopback only: --host 127.0.0.1.",
  ].join("\n");
}
