import { createHash, timingSafeEqual } from "node:crypto";
import { Elysia } from "elysia";
import { GatewayError } from "../http/errors";
import { sentReplies } from "../http/replies";
import type { AddressAllowlist } from "../plugins";
import type { MetricsRegistry } from "./metrics-registry";

export interface MetricsAccess {
  /** `telemetry.metrics_token` (or GATEWAY_METRICS_TOKEN), resolved. */
  token?: string;
  /** `telemetry.metrics_allowlist`. */
  allowlist: AddressAllowlist;
}

const digest = (value: string) => createHash("sha256").update(value).digest();
const sameToken = (presented: string, expected: string) => timingSafeEqual(digest(presented), digest(expected));

function bearerOf(request: Request): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "")?.[1];
}

/**
 * Who may scrape: a caller from an allow-listed address, or one presenting the metrics token.
 * Nothing else opens /metrics, whatever the state of dashboard authentication: not the setup
 * token (so the setup lock never leaks through the scraper's configuration), not a dashboard
 * session. With neither configured, /metrics is closed.
 */
function admitScrape(request: Request, ip: string | undefined, access: MetricsAccess): void {
  if (ip && access.allowlist.allows(ip)) return;
  const presented = bearerOf(request);
  if (access.token && presented && sameToken(presented, access.token)) return;
  if (!access.token && access.allowlist.isEmpty) {
    throw new GatewayError({ status: 403, errorType: "policy_metrics_not_configured", message: "/metrics is closed: configure telemetry.metrics_token (or GATEWAY_METRICS_TOKEN) or telemetry.metrics_allowlist" });
  }
  if (!presented) throw new GatewayError({ status: 401, errorType: "caller_metrics_token_required", message: "send the metrics token as Authorization: Bearer <token>" });
  throw new GatewayError({ status: 403, errorType: "caller_invalid_metrics_token", message: "the metrics token is wrong" });
}

/** GET /metrics in the Prometheus text format. */
export const metricsRoutes = (registry: MetricsRegistry, access: MetricsAccess) =>
  new Elysia({ name: "metrics" }).get("/metrics", async ({ request, server }) => {
    admitScrape(request, server?.requestIP(request)?.address, access);
    return new Response(await registry.render(), { headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" } });
  }, sentReplies({ 200: { description: "Every metric in the Prometheus text format (0.0.4).", mediaType: "text/plain" } }, { summary: "Scrape the metrics", description: "For a caller from `telemetry.metrics_allowlist` or presenting `telemetry.metrics_token`; closed (403) when neither is configured." }));
