import { Elysia } from "elysia";
import type { CorsConfig } from "./cors-config";
import { GatewayError } from "./errors";
import { requestPath } from "./request-path";

/** Which part of the gateway a path belongs to: `*` opens inference only. */
export interface CorsSurfaces {
  inference: readonly string[];
  management: readonly string[];
}

const DEFAULT_MAX_AGE_SECONDS = 600;
const METHODS = "GET, POST, PUT, PATCH, DELETE";

/** Request headers the SDKs and the gateway's own clients send (matched lower-case). */
const ALLOWED_HEADERS = new Set([
  "accept",
  "authorization",
  "content-type",
  "idempotency-key",
  "x-api-key",
  "api-key",
  "x-goog-api-key",
  "x-goog-api-client",
  "x-goog-user-project",
  "openai-organization",
  "openai-project",
  "openai-beta",
  "anthropic-version",
  "anthropic-beta",
  "anthropic-dangerous-direct-browser-access",
  "mcp-session-id",
  "mcp-protocol-version",
  "mcp-method",
  "mcp-name",
  "last-event-id",
  "a2a-extensions",
  "x-gateway-setup-token",
  "traceparent",
  "tracestate",
  "baggage",
]);
/** Families of headers: the Stainless SDKs' (OpenAI, Anthropic) platform headers, the gateway's own, MCP's tool arguments (`Mcp-Param-{Name}`). */
const ALLOWED_PREFIXES = ["x-stainless-", "x-gw-", "mcp-param-"];

/** Response headers a page's script may read: what the SDKs read (ids, retry hints, rate limits) and the gateway's own. */
const EXPOSED_HEADERS = [
  "x-request-id",
  "request-id",
  "retry-after",
  "retry-after-ms",
  "openai-processing-ms",
  "x-ratelimit-limit-requests",
  "x-ratelimit-limit-tokens",
  "x-ratelimit-remaining-requests",
  "x-ratelimit-remaining-tokens",
  "x-ratelimit-reset-requests",
  "x-ratelimit-reset-tokens",
  "mcp-session-id",
  "deprecation",
  "link",
  "x-gw-provider",
  "x-gw-model",
  "x-gw-cache-hit",
  "x-gw-cache-id",
  "x-gw-cache-similarity",
  "x-gw-async-job-id",
  "x-gw-stream-id",
  "x-gw-max-tokens-clamped",
  "x-gw-mcp-session-id",
].join(", ");

const isAllowedHeader = (name: string) => ALLOWED_HEADERS.has(name) || ALLOWED_PREFIXES.some((prefix) => name.startsWith(prefix));

/** The requested headers the gateway takes, as the preflight answer lists them. */
function allowedRequestHeaders(requested: string | null): string {
  if (!requested) return "";
  return requested
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name && isAllowedHeader(name))
    .join(", ");
}

/** The `Access-Control-Allow-Origin` a request from `origin` to `path` gets, or none. */
export function corsOrigin(cors: CorsConfig, surfaces: CorsSurfaces) {
  const named = new Set(cors.allowed_origins.filter((origin) => origin !== "*"));
  const anyForInference = cors.allowed_origins.includes("*");
  const under = (path: string, roots: readonly string[]) => roots.some((root) => path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`));
  return (origin: string, path: string): { surface?: "inference" | "management"; allow?: string } => {
    const surface = under(path, surfaces.management) ? "management" : under(path, surfaces.inference) ? "inference" : undefined;
    if (!surface) return {};
    if (named.has(origin)) return { surface, allow: origin };
    return { surface, allow: surface === "inference" && anyForInference ? "*" : undefined };
  };
}

function originRefused(origin: string, surface: string): GatewayError {
  return new GatewayError({
    status: 403,
    errorType: "caller_cors_origin_refused",
    message: `origin ${origin} may not call the ${surface} API from a browser: name it in cors.allowed_origins${surface === "management" ? " (`*` opens inference only)" : ""}`,
    param: "origin",
  });
}

/**
 * Answers browsers' preflight requests and gives every answer to an allowed origin its CORS
 * headers. Built only when `cors` is configured: without it no request pays anything.
 */
export function corsPolicy(cors: CorsConfig | undefined, surfaces: CorsSurfaces) {
  const plugin = new Elysia({ name: "cors" });
  if (!cors || cors.allowed_origins.length === 0) return plugin;
  const originFor = corsOrigin(cors, surfaces);
  const maxAge = String(cors.max_age_seconds ?? DEFAULT_MAX_AGE_SECONDS);
  const credentialsFor = (allow: string): Record<string, string> => (cors.allow_credentials === true && allow !== "*" ? { "access-control-allow-credentials": "true" } : {});
  return plugin.onRequest(({ request, set }) => {
    const origin = request.headers.get("origin");
    if (!origin) return;
    const { surface, allow } = originFor(origin, requestPath(request));
    if (!surface) return;
    const preflight = request.method === "OPTIONS" && request.headers.has("access-control-request-method");
    if (!allow) return preflight ? originRefused(origin, surface).toResponse({ vary: "Origin" }) : void (set.headers.vary = "Origin");
    if (preflight) {
      const headers: Record<string, string> = {
        "access-control-allow-origin": allow,
        "access-control-allow-methods": METHODS,
        "access-control-allow-headers": allowedRequestHeaders(request.headers.get("access-control-request-headers")),
        "access-control-max-age": maxAge,
        vary: "Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
        ...credentialsFor(allow),
      };
      if (request.headers.get("access-control-request-private-network") === "true") headers["access-control-allow-private-network"] = "true";
      return new Response(null, { status: 204, headers });
    }
    Object.assign(set.headers, { "access-control-allow-origin": allow, "access-control-expose-headers": EXPOSED_HEADERS, vary: "Origin", ...credentialsFor(allow) });
  });
}
