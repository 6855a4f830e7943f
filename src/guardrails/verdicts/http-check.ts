import type { EnvReader } from "../../config/env-reference";
import { guardedFetch } from "../../outbound/guarded-fetch";
import { type OutboundReach, policyFor } from "../../outbound/reach";
import type { VerdictFn } from "../checks";
import { withTimeout } from "./deadline";

const DEFAULT_TIMEOUT_MS = 3_000;

export interface HttpCheckDeps {
  outbound: OutboundReach;
  /** `env.NAME` header values, under the configuration's allow-list. */
  readEnv: EnvReader;
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
 * POSTs `{text, stage, request_id}` to a checker that answers `{"verdict": "block" | "allow"}`,
 * under the outbound address policy (no private or loopback address unless allowed, never a
 * metadata one; the checked address is the one connected to).
 */
export function httpCheck(config: HttpCheckConfig, deps: HttpCheckDeps): VerdictFn {
  const url = new URL(config.url);
  return async ({ text, stage, requestId }) => {
    try {
      return await withTimeout(config.timeoutMs ?? DEFAULT_TIMEOUT_MS, async (signal) => {
        const headers = new Headers({ "content-type": "application/json" });
        for (const [name, value] of Object.entries(config.headers)) headers.set(name, deps.readEnv(value));
        const body = JSON.stringify({ text, stage, request_id: requestId });
        const response = await guardedFetch(url, { method: "POST", headers, body, redirect: "manual", signal }, policyFor(deps.outbound, config.allowPrivateNetwork));
        if (!response.ok) throw new Error(`the checker answered ${response.status}`);
        return verdictOf(await response.json());
      });
    } catch {
      return config.failClosed;
    }
  };
}
