import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { isObject, type Json } from "./document";
import type { Operation, OperationParameter } from "./operations";
import { credentialsFor } from "./security";

/** The API an OpenAPI client calls: where, with what, and through which fetch (the outbound policy's). */
export interface ApiTarget {
  /** Without a trailing slash; the operation's path is appended. */
  baseUrl: string;
  /** The client's static headers, `env.NAME` values resolved. */
  headers: Record<string, string>;
  /** Values by security scheme name, resolved. */
  credentials: Record<string, string>;
  schemes: Json;
  fetch: (url: string, init: RequestInit) => Promise<Response>;
}

/** What one tool result may carry of a reply: a larger one is cut, with a note. */
const MAX_RESULT_CHARS = 1_000_000;

const text = (value: unknown) => (typeof value === "string" ? value : typeof value === "number" || typeof value === "boolean" ? String(value) : JSON.stringify(value));

/** A value as OpenAPI's simple style writes it: arrays and objects comma-separated. */
function simple(value: unknown): string {
  if (Array.isArray(value)) return value.map(text).join(",");
  if (isObject(value)) return Object.entries(value).flatMap(([key, item]) => [key, text(item)]).join(",");
  return text(value);
}

function addQuery(url: URL, parameter: OperationParameter, value: unknown): void {
  if (parameter.json) return url.searchParams.append(parameter.name, JSON.stringify(value));
  if (Array.isArray(value) && parameter.explode) return value.forEach((item) => url.searchParams.append(parameter.name, text(item)));
  if (isObject(value) && parameter.explode) return Object.entries(value).forEach(([key, item]) => url.searchParams.append(key, text(item)));
  url.searchParams.append(parameter.name, simple(value));
}

function bodyOf(contentType: string, value: unknown): RequestInit["body"] {
  if (contentType === "application/x-www-form-urlencoded" && isObject(value)) return new URLSearchParams(Object.entries(value).map(([key, item]): [string, string] => [key, text(item)]));
  if (contentType === "multipart/form-data" && isObject(value)) {
    const form = new FormData();
    for (const [key, item] of Object.entries(value)) form.append(key, text(item));
    return form;
  }
  return contentType.includes("json") ? JSON.stringify(value) : text(value);
}

/** A required argument the call lacks, if any. */
export const missingArgument = (operation: Operation, args: Json) =>
  [...operation.parameters.filter((parameter) => parameter.required).map((parameter) => parameter.argument), ...(operation.body?.required ? ["body"] : [])].find((argument) => args[argument] === undefined || args[argument] === null);

/** The HTTP request a tool call stands for: path, query, header and cookie parameters, the body, and the credentials. */
export function requestFor(operation: Operation, args: Json, target: ApiTarget): { url: string; init: RequestInit } {
  const path = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const parameter = operation.parameters.find((candidate) => candidate.in === "path" && candidate.name === name);
    return encodeURIComponent(simple(parameter ? args[parameter.argument] : ""));
  });
  const url = new URL(target.baseUrl + path);
  const headers = new Headers(target.headers);
  const cookies: string[] = [];
  for (const parameter of operation.parameters) {
    const value = args[parameter.argument];
    if (value === undefined || value === null || parameter.in === "path") continue;
    if (parameter.in === "query") addQuery(url, parameter, value);
    else if (parameter.in === "header") headers.set(parameter.name, parameter.json ? JSON.stringify(value) : simple(value));
    else cookies.push(`${parameter.name}=${encodeURIComponent(parameter.json ? JSON.stringify(value) : simple(value))}`);
  }
  for (const { placement, value } of credentialsFor(operation.security, target.schemes, target.credentials)) {
    if (placement.in === "header") headers.set(placement.name, placement.prefix + value);
    else if (placement.in === "query") url.searchParams.set(placement.name, value);
    else cookies.push(`${placement.name}=${value}`);
  }
  if (cookies.length > 0) headers.set("cookie", cookies.join("; "));
  const body = operation.body && args.body !== undefined ? bodyOf(operation.body.contentType, args.body) : undefined;
  if (body !== undefined && operation.body && operation.body.contentType !== "multipart/form-data") headers.set("content-type", operation.body.contentType);
  if (!headers.has("accept")) headers.set("accept", "application/json, text/*;q=0.9, */*;q=0.8");
  // A redirect is answered, not followed: the credentials go to the API's own address only.
  return { url: url.href, init: { method: operation.method.toUpperCase(), headers, body, redirect: "manual" } };
}

/** The reply as a tool result: an image as an image, anything else as text; a redirect or a status of 400 or more is the tool's failure. */
export async function resultOf(response: Response): Promise<CallToolResult> {
  const contentType = response.headers.get("content-type") ?? "";
  const location = response.status >= 300 && response.status < 400 ? response.headers.get("location") : null;
  if (location) {
    await response.body?.cancel();
    return { content: [{ type: "text", text: `HTTP ${response.status}: the API redirects to ${location}, which the gateway does not follow (the API's credentials are sent to its own address only)` }], isError: true };
  }
  const isError = response.status >= 400;
  if (!isError && contentType.startsWith("image/")) {
    return { content: [{ type: "image", data: Buffer.from(await response.arrayBuffer()).toString("base64"), mimeType: contentType.split(";")[0]! }] };
  }
  let body = await response.text();
  if (body.length > MAX_RESULT_CHARS) body = `${body.slice(0, MAX_RESULT_CHARS)}\n[cut: the reply had ${body.length} characters]`;
  if (!isError) return { content: [{ type: "text", text: body }] };
  return { content: [{ type: "text", text: `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}${body ? `: ${body}` : ""}` }], isError: true };
}

/** Runs the operation; a failure to reach the API is the tool's failure too, in words that carry no credential. */
export async function callOperation(operation: Operation, args: Json, target: ApiTarget, signal: AbortSignal): Promise<CallToolResult> {
  const missing = missingArgument(operation, args);
  if (missing) return { content: [{ type: "text", text: `the argument '${missing}' is required` }], isError: true };
  try {
    const { url, init } = requestFor(operation, args, target);
    return await resultOf(await target.fetch(url, { ...init, signal }));
  } catch (error) {
    let message = error instanceof Error ? error.message : String(error);
    for (const secret of [...Object.values(target.credentials), ...Object.values(target.headers)]) if (secret.length >= 4) message = message.replaceAll(secret, "[redacted]");
    return { content: [{ type: "text", text: `${operation.method.toUpperCase()} ${operation.path} failed: ${message}` }], isError: true };
  }
}
