import { GatewayError } from "../../http/errors";

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];

export interface OriginPolicy {
  /** Lower-cased names or name:port; undefined: every host (or the loopback names on a loopback listener). */
  allowedHosts?: string[];
  /** Lower-cased origins without a trailing slash. */
  allowedOrigins: string[];
}

const isLoopbackName = (hostname: string) => LOOPBACK_NAMES.includes(hostname) || hostname === "::1" || /^127\.\d+\.\d+\.\d+$/.test(hostname);

/** `host` or `host:port` as a URL sees it (brackets kept around IPv6), or undefined when it is not one. */
function parsedHost(value: string): { hostname: string; host: string } | undefined {
  try {
    const url = new URL(`http://${value}`);
    return { hostname: url.hostname.toLowerCase(), host: url.host.toLowerCase() };
  } catch {
    return undefined;
  }
}

function hostAllowed(hostHeader: string | null, allowed: string[]): boolean {
  if (allowed.includes("*")) return true;
  const host = hostHeader === null ? undefined : parsedHost(hostHeader);
  return host !== undefined && (allowed.includes(host.hostname) || allowed.includes(host.host));
}

function originAllowed(origin: string, hostHeader: string | null, policy: OriginPolicy, loopbackListener: boolean): boolean {
  const normalized = origin.toLowerCase();
  if (policy.allowedOrigins.includes("*") || policy.allowedOrigins.includes(normalized)) return true;
  let url: URL;
  try {
    url = new URL(normalized);
  } catch {
    return false;
  }
  // The gateway's own pages (the dashboard) call it from the origin it serves.
  if (hostHeader !== null && url.host === hostHeader.toLowerCase()) return true;
  return loopbackListener && policy.allowedOrigins.length === 0 && isLoopbackName(url.hostname);
}

/**
 * DNS rebinding protection (the MCP transport spec: servers MUST validate Origin): a page on
 * `attacker.test`, whose name the attacker points at 127.0.0.1, reaches a gateway on the
 * user's machine with `Host: attacker.test` and that Origin. Either is refused with 403.
 */
export function assertOriginAllowed(request: Request, listenerHostname: string | undefined, policy: OriginPolicy): void {
  const hostHeader = request.headers.get("host");
  const loopbackListener = listenerHostname !== undefined && isLoopbackName(listenerHostname.toLowerCase());
  const allowedHosts = policy.allowedHosts ?? (loopbackListener ? LOOPBACK_NAMES : undefined);
  if (allowedHosts && !hostAllowed(hostHeader, allowedHosts)) {
    throw new GatewayError({ status: 403, errorType: "caller_mcp_host_not_allowed", message: `Host '${hostHeader ?? ""}' is not allowed on /mcp (mcp.allowed_hosts)`, param: "Host" });
  }
  const origin = request.headers.get("origin");
  if (origin !== null && !originAllowed(origin, hostHeader, policy, loopbackListener)) {
    throw new GatewayError({ status: 403, errorType: "caller_mcp_origin_not_allowed", message: `Origin '${origin}' is not allowed on /mcp (mcp.allowed_origins)`, param: "Origin" });
  }
}
