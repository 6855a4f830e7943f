import { resolveEnvReference } from "../../config/env-reference";
import { bareHost, checkReceiver, type HostResolver } from "../../webhooks/host-resolver";
import type { VerdictFn } from "../checks";
import { withTimeout } from "./deadline";

const DEFAULT_TIMEOUT_MS = 3_000;

export interface HttpCheckDeps {
  resolveHost: HostResolver;
  env: Record<string, string | undefined>;
}

export interface HttpCheckConfig {
  url: string;
  headers: Record<string, string>;
  allowPrivateNetwork: boolean;
  timeoutMs?: number;
  failClosed: boolean;
}

function verdictOf(reply: unknown): boolean {
  const verdict = (reply as { verdict?: unknown }).verdict;
  if (verdict === "block") return true;
  if (verdict === "allow") return false;
  throw new Error("the checker answered no verdict");
}

/**
 * POSTs `{text, stage, request_id}` to a checker that answers `{"verdict": "block" | "allow"}`.
 * The host's addresses are checked as a webhook receiver's are (no private, loopback or metadata
 * address unless allowed), and the checked address is the one connected to.
 */
export function httpCheck(config: HttpCheckConfig, deps: HttpCheckDeps): VerdictFn {
  const url = new URL(config.url);
  return async ({ text, stage, requestId }) => {
    try {
      return await withTimeout(config.timeoutMs ?? DEFAULT_TIMEOUT_MS, async (signal) => {
        const receiver = await checkReceiver(url, config.allowPrivateNetwork, deps.resolveHost);
        if (!receiver.ok) throw new Error(receiver.reason);
        const target = new URL(url);
        target.hostname = receiver.address.family === 6 ? `[${receiver.address.address}]` : receiver.address.address;
        const headers = new Headers({ "content-type": "application/json", host: url.host });
        for (const [name, value] of Object.entries(config.headers)) headers.set(name, resolveEnvReference(value, deps.env));
        const response = await fetch(target, { method: "POST", headers, body: JSON.stringify({ text, stage, request_id: requestId }), redirect: "manual", signal, tls: { serverName: bareHost(url) } });
        if (!response.ok) throw new Error(`the checker answered ${response.status}`);
        return verdictOf(await response.json());
      });
    } catch {
      return config.failClosed;
    }
  };
}
