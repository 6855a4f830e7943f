import { ContentTypeNotSupportedError, RequestMalformedError } from "@a2a-js/sdk/errors";
import { A2A_METHODS, type A2ACall } from "./call";

/**
 * The HTTP+JSON binding's operations (A2A v1), both ways: a caller's request path to a call,
 * and a call to the upstream's request path. Task ids travel percent-encoded in the path.
 */

const PUSH_CONFIGS = "pushNotificationConfigs";

/** How a query string field is typed in the call's params. */
const QUERY_FIELDS: Record<string, Record<string, "string" | "integer" | "boolean">> = {
  [A2A_METHODS.getTask]: { historyLength: "integer" },
  [A2A_METHODS.listTasks]: {
    contextId: "string",
    status: "string",
    pageSize: "integer",
    pageToken: "string",
    historyLength: "integer",
    statusTimestampAfter: "string",
    includeArtifacts: "boolean",
  },
  [A2A_METHODS.listPushConfigs]: { pageSize: "integer", pageToken: "string" },
};

function typedQuery(method: string, query: URLSearchParams): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const [field, type] of Object.entries(QUERY_FIELDS[method] ?? {})) {
    const raw = query.get(field);
    if (raw === null || raw === "") continue;
    if (type === "integer") {
      if (!/^-?\d+$/.test(raw)) throw new RequestMalformedError(`${field} must be an integer`);
      params[field] = Number(raw);
    } else if (type === "boolean") {
      if (raw !== "true" && raw !== "false") throw new RequestMalformedError(`${field} must be true or false`);
      params[field] = raw === "true";
    } else params[field] = raw;
  }
  return params;
}

function decodeId(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new RequestMalformedError(`'${raw}' is not a valid percent-encoded id`);
  }
}

/** `abc:cancel` to `["abc", "cancel"]`; ids are percent-encoded, so the last colon starts the action. */
function splitAction(segment: string): [id: string, action: string | undefined] {
  const colon = segment.lastIndexOf(":");
  return colon > 0 ? [decodeId(segment.slice(0, colon)), segment.slice(colon + 1)] : [decodeId(segment), undefined];
}

function routeOf(verb: string, segments: string[]): { method: string; ids: Record<string, string>; takesBody?: boolean } | undefined {
  const [first, second, third, fourth, ...extra] = segments;
  if (extra.length > 0) return undefined;
  if (segments.length === 1 && verb === "POST" && first === "message:send") return { method: A2A_METHODS.sendMessage, ids: {}, takesBody: true };
  if (segments.length === 1 && verb === "POST" && first === "message:stream") return { method: A2A_METHODS.sendStreamingMessage, ids: {}, takesBody: true };
  if (segments.length === 1 && verb === "GET" && first === "extendedAgentCard") return { method: A2A_METHODS.getExtendedAgentCard, ids: {} };
  if (first !== "tasks") return undefined;
  if (segments.length === 1) return verb === "GET" ? { method: A2A_METHODS.listTasks, ids: {} } : undefined;
  const [id, action] = splitAction(second!);
  if (segments.length === 2) {
    if (action === "cancel" && verb === "POST") return { method: A2A_METHODS.cancelTask, ids: { id }, takesBody: true };
    if (action === "subscribe" && (verb === "GET" || verb === "POST")) return { method: A2A_METHODS.subscribeToTask, ids: { id } };
    return action === undefined && verb === "GET" ? { method: A2A_METHODS.getTask, ids: { id } } : undefined;
  }
  if (action !== undefined || third !== PUSH_CONFIGS) return undefined;
  if (segments.length === 3) {
    if (verb === "POST") return { method: A2A_METHODS.createPushConfig, ids: { taskId: id }, takesBody: true };
    return verb === "GET" ? { method: A2A_METHODS.listPushConfigs, ids: { taskId: id } } : undefined;
  }
  const configId = decodeId(fourth!);
  if (verb === "GET") return { method: A2A_METHODS.getPushConfig, ids: { taskId: id, id: configId } };
  return verb === "DELETE" ? { method: A2A_METHODS.deletePushConfig, ids: { taskId: id, id: configId } } : undefined;
}

const JSON_MEDIA_TYPES = new Set(["application/json", "application/a2a+json"]);

function bodyOf(text: string, contentType: string | null): Record<string, unknown> {
  if (text.trim() === "") return {};
  const mediaType = contentType?.split(";", 1)[0]!.trim().toLowerCase();
  if (mediaType && !JSON_MEDIA_TYPES.has(mediaType)) throw new ContentTypeNotSupportedError(`Content-Type '${contentType}' is not supported; send application/json or application/a2a+json`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new RequestMalformedError("the request body is not valid JSON");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new RequestMalformedError("the request body must be a JSON object");
  return body as Record<string, unknown>;
}

export interface RestRequest {
  verb: string;
  /** The path below the binding's base, still percent-encoded. */
  path: string;
  query: URLSearchParams;
  body: string;
  contentType: string | null;
}

/** The call a caller's HTTP+JSON request makes, or undefined when no operation lives at that path. */
export function callFromRest(request: RestRequest): A2ACall | undefined {
  const route = routeOf(request.verb, request.path.split("/").filter(Boolean));
  if (!route) return undefined;
  const body = route.takesBody ? bodyOf(request.body, request.contentType) : {};
  return { method: route.method, params: { ...body, ...typedQuery(route.method, request.query), ...route.ids } };
}

export interface RestUpstreamRequest {
  verb: "GET" | "POST" | "DELETE";
  path: string;
  query?: URLSearchParams;
  body?: Record<string, unknown>;
}

function queryOf(method: string, params: Record<string, unknown>): URLSearchParams | undefined {
  const query = new URLSearchParams();
  for (const field of Object.keys(QUERY_FIELDS[method] ?? {})) if (params[field] !== undefined) query.set(field, String(params[field]));
  return query.size > 0 ? query : undefined;
}

const without = (params: Record<string, unknown>, ...fields: string[]) => Object.fromEntries(Object.entries(params).filter(([field]) => !fields.includes(field)));

/** The upstream HTTP+JSON request for a call; undefined for methods the binding lacks (JSON-RPC extension methods). */
export function restRequestFor({ method, params }: A2ACall): RestUpstreamRequest | undefined {
  const task = encodeURIComponent(String(params.id ?? ""));
  const owner = encodeURIComponent(String(params.taskId ?? ""));
  const config = encodeURIComponent(String(params.id ?? ""));
  switch (method) {
    case A2A_METHODS.sendMessage:
      return { verb: "POST", path: "/message:send", body: params };
    case A2A_METHODS.sendStreamingMessage:
      return { verb: "POST", path: "/message:stream", body: params };
    case A2A_METHODS.getTask:
      return { verb: "GET", path: `/tasks/${task}`, query: queryOf(method, params) };
    case A2A_METHODS.listTasks:
      return { verb: "GET", path: "/tasks", query: queryOf(method, params) };
    case A2A_METHODS.cancelTask:
      return { verb: "POST", path: `/tasks/${task}:cancel`, body: without(params, "id") };
    case A2A_METHODS.subscribeToTask:
      return { verb: "POST", path: `/tasks/${task}:subscribe` };
    case A2A_METHODS.createPushConfig:
      return { verb: "POST", path: `/tasks/${owner}/${PUSH_CONFIGS}`, body: params };
    case A2A_METHODS.listPushConfigs:
      return { verb: "GET", path: `/tasks/${owner}/${PUSH_CONFIGS}`, query: queryOf(method, params) };
    case A2A_METHODS.getPushConfig:
      return { verb: "GET", path: `/tasks/${owner}/${PUSH_CONFIGS}/${config}` };
    case A2A_METHODS.deletePushConfig:
      return { verb: "DELETE", path: `/tasks/${owner}/${PUSH_CONFIGS}/${config}` };
    case A2A_METHODS.getExtendedAgentCard:
      return { verb: "GET", path: "/extendedAgentCard" };
    default:
      return undefined;
  }
}
