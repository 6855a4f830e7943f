import { toOpenAPISchema } from "@elysiajs/openapi";
import type { AnyElysia } from "elysia";
import packageJson from "../../package.json";
import { routeAccessFor } from "../access/route-access";
import { areaOf, SECURITY_SCHEMES, tagList } from "./areas";
import { GatewayErrorBody } from "./error-body";

type Operation = Record<string, unknown> & { parameters?: Array<{ name: string; in: string }>; responses?: Record<string, unknown>; tags?: string[] };
type PathItem = Record<string, Operation>;

const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
/** A route registered for every method: the A2A REST binding answers these. */
const ALL_METHODS = ["get", "post", "put", "patch", "delete"];
const WILDCARD = "rest";

/** Elysia's `/a/:id/*` as OpenAPI's `/a/{id}/{rest}`; a trailing slash (a group's root) dropped. */
function openApiPath(elysiaPath: string): string {
  const path = elysiaPath
    .replace(/:(\w+)\??/g, "{$1}")
    .replace(/\*$/, `{${WILDCARD}}`)
    .replace(/(.)\/$/, "$1");
  return path;
}

/** The methods a route is documented under: a WebSocket as the GET that upgrades it. */
function documentedMethods(method: string): string[] {
  const lower = method.toLowerCase();
  if (lower === "ws") return ["get"];
  if (lower === "all") return ALL_METHODS;
  return HTTP_METHODS.includes(lower) ? [lower] : [];
}

const pathParameters = (path: string) =>
  [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name: name!,
    in: "path",
    required: true,
    schema: { type: "string" },
    ...(name === WILDCARD ? { description: "The rest of the path, slashes included." } : {}),
  }));

/**
 * @elysiajs/openapi offers every body schema as JSON, a form and multipart too; the gateway's
 * management and inference bodies are JSON, so a body documented as JSON is documented as that alone.
 */
function keepJsonOnly(operation: Operation): void {
  const content = (operation.requestBody as { content?: Record<string, unknown> } | undefined)?.content;
  if (!content?.["application/json"]) return;
  for (const type of Object.keys(content)) if (type !== "application/json") delete content[type];
}

function describeAccess(method: string, path: string): { security?: unknown[]; note?: string } {
  if (!path.startsWith("/api/") || path === "/api/openapi.json" || path === "/api/docs") return {};
  const rule = routeAccessFor(method.toUpperCase(), path.replace(/\{(\w+)\}/g, ":$1"))?.rule;
  if (!rule) return { note: "Not in the access table: the local admin only." };
  switch (rule.access.kind) {
    case "public":
      return { security: [] };
    case "permission":
      return { note: `Permission: ${rule.access.permission}${rule.access.localAdminOnOss ? " (on the OSS edition, the local admin only)" : ""}.` };
    case "own-credential":
      return { security: [], note: `Checks its own credential: ${rule.access.credential}.` };
    case "local-admin":
      return { note: "The local admin only." };
    default:
      return {};
  }
}

/**
 * The app as @elysiajs/openapi should read it: every route carries the global body hook (a
 * function), and a route with any parse hook but no named parser would be documented with no
 * content type at all; a route's body is documented by the parser it names, JSON by default.
 */
function withNamedParsersOnly(app: AnyElysia): AnyElysia {
  const routes = app.routes.map((route) => {
    const parsers = Array.isArray(route.hooks.parse) ? route.hooks.parse.filter(({ fn }: { fn: unknown }) => typeof fn === "string") : [];
    return { ...route, hooks: { ...route.hooks, parse: parsers.length > 0 ? parsers : undefined } };
  });
  return Object.assign(Object.create(app), { getGlobalRoutes: () => routes });
}

/**
 * The OpenAPI 3.1 document of every route the app serves: bodies, parameters and responses from
 * the routes' TypeBox schemas (through @elysiajs/openapi), routes it leaves out (wildcards,
 * WebSockets, every-method routes) added from the route table, and per route its area's tag,
 * its credentials and the error body.
 */
export function buildOpenApiDocument(app: AnyElysia) {
  const generated = toOpenAPISchema(withNamedParsersOnly(app), undefined, undefined, undefined, "3.1.0");
  const paths: Record<string, PathItem> = {};
  for (const [rawPath, item] of Object.entries(generated.paths as Record<string, PathItem>)) {
    const path = openApiPath(rawPath);
    for (const [method, operation] of Object.entries(item)) {
      if (!HTTP_METHODS.includes(method)) continue;
      (paths[path] ??= {})[method] ??= operation;
    }
  }
  for (const route of app.routes) {
    const path = openApiPath(route.path);
    for (const method of documentedMethods(route.method)) {
      const operation: Operation = ((paths[path] ??= {})[method] ??= {});
      if (route.method === "WS") operation.description = "A WebSocket: the GET upgrades the connection (101 Switching Protocols).";
    }
  }
  for (const [path, item] of Object.entries(paths)) {
    const area = areaOf(path);
    for (const [method, operation] of Object.entries(item)) {
      const declared = new Set((operation.parameters ?? []).filter((parameter) => parameter.in === "path").map((parameter) => parameter.name));
      operation.parameters = [...(operation.parameters ?? []), ...pathParameters(path).filter((parameter) => !declared.has(parameter.name))];
      keepJsonOnly(operation);
      operation.tags = [area.tag];
      operation.operationId = `${method}${path.replace(/[^A-Za-z0-9]+(.)?/g, (_, next: string | undefined) => (next ?? "").toUpperCase())}`;
      const access = describeAccess(method, path);
      operation.security = access.security ?? area.security;
      if (access.note) operation.description = [operation.description, access.note].filter(Boolean).join(" ");
      operation.responses = {
        ...(operation.responses ?? { 200: { description: "Success." } }),
        default: { description: "An error, in the gateway's error body.", content: { "application/json": { schema: { $ref: "#/components/schemas/GatewayError" } } } },
      };
    }
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "AI gateway",
      version: packageJson.version,
      description: "One endpoint and key format in front of many model providers, with virtual keys, request logs, MCP, A2A and async jobs. Inference mounts speak each provider's own wire format; management lives under /api.",
    },
    tags: tagList(),
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: {
      schemas: { ...(generated.components.schemas as object), GatewayError: GatewayErrorBody },
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}
