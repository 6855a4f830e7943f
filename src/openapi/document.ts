import { toOpenAPISchema } from "@elysiajs/openapi";
import type { AnyElysia } from "elysia";
import packageJson from "../../package.json";
import { routeAccessFor } from "../access/route-access";
import { areaOf, SECURITY_SCHEMES, tagList } from "./areas";
import { A2AErrorBody, GatewayErrorBody } from "./error-body";
import { ERROR_RESPONSES, errorResponses, type RouteKind } from "./error-responses";
import { nameReplySchemas } from "./named-schemas";
import { summaryOf } from "./summaries";

type Operation = Record<string, unknown> & { parameters?: Array<{ name: string; in: string }>; responses?: Record<string, unknown>; tags?: string[]; summary?: string; requestBody?: unknown };
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
    ...(name === "framework" ? { description: "The framework's name: `litellm`, `langchain` or `pydanticai`." } : {}),
  }));

const SYSTEM_PATHS = ["/health", "/metrics", "/api/openapi.json", "/api/docs", "/api/version", "/ui"];

function routeKind(path: string, security: Array<Record<string, string[]>>, ownCredential: boolean): RouteKind {
  if (path === "/" || SYSTEM_PATHS.some((prefix) => path === prefix || path.startsWith(`${prefix}/`))) {
    return security.some((requirement) => Object.keys(requirement).length > 0) ? "guarded-system" : "system";
  }
  if (path.startsWith("/api/")) return security.length === 0 && !ownCredential ? "public-management" : "management";
  return "inference";
}

/** An A2A protocol route answers errors in the protocol's envelope, and an unknown agent with an empty 404 (spec 4.12). */
const A2A_ERRORS = {
  404: { description: "No enabled agent has this name: an empty body." },
  default: { description: "An error in the A2A binding's envelope.", content: { "application/json": { schema: { $ref: "#/components/schemas/A2AError" } } } },
};

/** The operation's responses: those its route declares (or a bare 200), and the errors it answers. */
function responsesOf(method: string, path: string, operation: Operation, ownCredential: boolean): Record<string, unknown> {
  const declared = operation.responses ?? { 200: { description: "Success." } };
  if (path.startsWith("/agents/a2a/")) return { ...declared, ...A2A_ERRORS };
  const kind = routeKind(path, (operation.security as Array<Record<string, string[]>> | undefined) ?? [], ownCredential);
  const facts = {
    kind,
    method,
    hasInput: operation.requestBody !== undefined || (operation.parameters ?? []).some((parameter) => parameter.in !== "path" || parameter.name !== "framework"),
    addressesItem: /\{(?!rest\}|framework\})\w+\}/.test(path),
  };
  return { ...declared, ...errorResponses(facts, declared), default: { $ref: "#/components/responses/Error500" } };
}

/**
 * @elysiajs/openapi offers every body schema as JSON, a form and multipart too; the gateway's
 * management and inference bodies are JSON, so a body documented as JSON is documented as that alone.
 */
function keepJsonOnly(operation: Operation): void {
  const content = (operation.requestBody as { content?: Record<string, unknown> } | undefined)?.content;
  if (!content?.["application/json"]) return;
  for (const type of Object.keys(content)) if (type !== "application/json") delete content[type];
}

function describeAccess(method: string, path: string): { security?: unknown[]; note?: string; ownCredential?: boolean } {
  if (!path.startsWith("/api/") || path === "/api/openapi.json" || path === "/api/docs") return {};
  const rule = routeAccessFor(method.toUpperCase(), path.replace(/\{(\w+)\}/g, ":$1"))?.rule;
  if (!rule) return { note: "Not in the access table: the local admin only." };
  switch (rule.access.kind) {
    case "public":
      return { security: [] };
    case "permission":
      return { note: `Permission: ${rule.access.permission}${rule.access.localAdminOnOss ? " (on the OSS edition, the local admin only)" : ""}.` };
    case "own-credential":
      return { security: [], note: `Checks its own credential: ${rule.access.credential}.`, ownCredential: true };
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
    // Declared replies are documented from `detail.responses` (src/http/replies.ts), whether or not the route checks them.
    return { ...route, hooks: { ...route.hooks, parse: parsers.length > 0 ? parsers : undefined, response: undefined } };
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
      // A path with a dot is left out as a static file (/api/openapi.json, an agent card): its route's own detail describes it.
      const operation: Operation = ((paths[path] ??= {})[method] ??= { ...(route.hooks.detail as Operation | undefined) });
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
      operation.summary ??= summaryOf(method, path);
      operation.responses = responsesOf(method, path, operation, access.ownCredential === true);
    }
  }
  const named = nameReplySchemas(Object.values(paths).flatMap((item) => Object.values(item)));
  return {
    openapi: "3.1.0",
    info: {
      title: "AI gateway",
      version: packageJson.version,
      description: "One endpoint and key format in front of many model providers, with virtual keys, request logs, MCP, A2A and async jobs. Inference mounts speak each provider's own wire format; management lives under /api.",
    },
    servers: [{ url: "/", description: "The gateway that serves this document." }],
    tags: tagList(),
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: {
      schemas: { ...(generated.components.schemas as object), ...named, GatewayError: GatewayErrorBody, A2AError: A2AErrorBody },
      responses: ERROR_RESPONSES,
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}
