import { isEnvReference } from "../config/env-reference";
import { badRequest } from "../http/errors";
import { checkReceiver, type HostResolver } from "./host-resolver";

/** Spec 2.6 and 8: a written zero selects these. */
export const TUNABLE_DEFAULTS = {
  max_retries: 4,
  retry_backoff_initial_seconds: 30,
  retry_backoff_max_seconds: 1800,
  attempt_timeout_seconds: 10,
  max_response_payload_kbs: 256,
  max_concurrent_deliveries: 10,
  /** Per node; 0 selects no limit. */
  max_deliveries_per_second: 0,
  /** The endpoint goes failing after this many consecutive failed attempts (or a message's final failure). */
  failing_after_failed_attempts: 5,
  /** Failing this long (5 days)... */
  disable_after_failing_seconds: 432_000,
  /** ...with at least this many messages failed for good disables it automatically. */
  disable_after_failed_messages: 3,
} as const;

export type Tunable = keyof typeof TUNABLE_DEFAULTS;
export type Tunables = Record<Tunable, number>;

export function resolveTunables(written: Partial<Record<Tunable, number>>, current?: Tunables): Tunables {
  const resolved = {} as Tunables;
  for (const [name, fallback] of Object.entries(TUNABLE_DEFAULTS) as Array<[Tunable, number]>) {
    const value = written[name] ?? current?.[name] ?? 0;
    resolved[name] = value === 0 ? fallback : value;
  }
  return resolved;
}

/**
 * Headers the gateway sets on every delivery, which an endpoint cannot override; every
 * `webhook-*` name is reserved as well.
 */
const RESERVED_HEADERS = new Set([
  "content-type",
  "content-length",
  "content-encoding",
  "transfer-encoding",
  "host",
  "user-agent",
  "connection",
  "keep-alive",
  "te",
  "trailer",
  "upgrade",
  "expect",
  "proxy-authorization",
  "proxy-connection",
]);

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const ENV_NAME = /^env\.[A-Za-z_][A-Za-z0-9_]*$/;

export function validateHeaders(headers: Record<string, string>): void {
  const seen = new Set<string>();
  for (const [name, value] of Object.entries(headers)) {
    const param = `headers.${name}`;
    const lower = name.toLowerCase();
    if (!TOKEN.test(name)) throw badRequest(`'${name}' is not a valid header name`, param);
    if (lower.startsWith("webhook-") || RESERVED_HEADERS.has(lower)) {
      throw badRequest(`'${name}' is set by the gateway on every delivery and cannot be overridden`, param, "caller_reserved_header");
    }
    if (seen.has(lower)) throw badRequest(`header '${name}' is given twice`, param);
    seen.add(lower);
    if (value === "" || /[\r\n\0]/.test(value)) throw badRequest(`header '${name}' needs a non-empty value on one line`, param);
    if (isEnvReference(value) && !ENV_NAME.test(value)) throw badRequest(`'${value}' is not a valid env.VAR_NAME reference`, param);
  }
}

/**
 * HTTPS unless private networks are allowed; no credentials in the URL; a host that is (or
 * resolves to) a refused address is a 400. A host that does not resolve yet is accepted: the
 * same check runs again on the resolved address at every delivery.
 */
export async function validateUrl(raw: string, allowPrivateNetwork: boolean, resolve: HostResolver): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badRequest(`'${raw}' is not a valid URL`, "url");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw badRequest("the delivery URL must use https", "url");
  if (url.protocol === "http:" && !allowPrivateNetwork) throw badRequest("the delivery URL must use https unless allow_private_network is set", "url", "caller_insecure_url");
  if (url.username || url.password) throw badRequest("credentials cannot be part of the delivery URL; send them in headers", "url");
  const check = await checkReceiver(url, allowPrivateNetwork, resolve);
  if (!check.ok && check.refused) throw badRequest(`the delivery URL is not allowed: ${check.reason}`, "url", "caller_receiver_refused");
  return url.toString();
}
