import { badRequest } from "../../http/errors";
import { DocumentRefused, fieldPath, isObject, type Json, type OpenApiDocument } from "./document";
import { RefResolver } from "./refs";

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

export type ParameterLocation = "path" | "query" | "header" | "cookie";

/** A parameter of an operation, and the argument of the tool it is read from. */
export interface OperationParameter {
  name: string;
  in: ParameterLocation;
  argument: string;
  required: boolean;
  /** `explode` as OpenAPI defines it for this location (form query arrays repeat the name). */
  explode: boolean;
  /** Declared with `content` rather than `schema`: the value is sent as JSON. */
  json: boolean;
}

/** Alternatives of scheme names, each with the scopes it needs: one alternative satisfied is enough. */
export type SecurityRequirement = Record<string, string[]>;

/** One operation of the API as a tool: how its arguments become an HTTP request. */
export interface Operation {
  toolName: string;
  operationId?: string;
  tags: string[];
  summary?: string;
  method: string;
  path: string;
  description: string;
  inputSchema: Json;
  parameters: OperationParameter[];
  /** The media type the body is sent as, under the `body` argument. */
  body?: { contentType: string; required: boolean };
  /** Undefined when the document declares no requirement at all: every stored credential is sent. */
  security?: SecurityRequirement[];
}

/** Which operations become tools: included by tag or operationId (all when both lists are empty), minus the excluded ones. */
export interface OperationSelection {
  includeTags: string[];
  excludeTags: string[];
  includeOperations: string[];
  excludeOperations: string[];
}

/** An operation as listed, before its schemas are built. */
interface ListedOperation {
  method: (typeof METHODS)[number];
  path: string;
  item: Json;
  operation: Json;
  field: string;
  operationId?: string;
  toolName: string;
  tags: string[];
}

/** An MCP tool name from an operationId (or method and path): letters, digits, `_` and `-`, at most 64 characters. */
export function toolNameOf(operationId: string | undefined, method: string, path: string): string {
  const name = (operationId ?? `${method}_${path}`).replace(/[^A-Za-z0-9_-]+/g, "_").replace(/^_+|_+$/g, "").slice(0, 64);
  return name || method;
}

function listOperations(document: OpenApiDocument): ListedOperation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const operation = item[method];
      if (operation === undefined) return [];
      const field = fieldPath(fieldPath("paths", path), method);
      if (!isObject(operation)) throw new DocumentRefused("an operation must be an object", field);
      const operationId = typeof operation.operationId === "string" ? operation.operationId : undefined;
      const tags = Array.isArray(operation.tags) ? operation.tags.filter((tag): tag is string => typeof tag === "string") : [];
      return [{ method, path, item, operation, field, operationId, toolName: toolNameOf(operationId, method, path), tags }];
    }),
  );
}

/** Every name of a selection list must match something in the document: a typo would silently drop or keep a tool. */
function checkNamed(list: string[], known: Set<string>, param: string, what: string): void {
  const unknown = list.findIndex((name) => !known.has(name));
  if (unknown >= 0) throw badRequest(`the document has no ${what} '${list[unknown]}'`, `${param}[${unknown}]`);
}

function selected(operations: ListedOperation[], selection: OperationSelection): ListedOperation[] {
  const tags = new Set(operations.flatMap((operation) => operation.tags));
  const names = new Set(operations.flatMap((operation) => [operation.toolName, ...(operation.operationId ? [operation.operationId] : [])]));
  checkNamed(selection.includeTags, tags, "openapi.include_tags", "tag");
  checkNamed(selection.excludeTags, tags, "openapi.exclude_tags", "tag");
  checkNamed(selection.includeOperations, names, "openapi.include_operations", "operation");
  checkNamed(selection.excludeOperations, names, "openapi.exclude_operations", "operation");
  const named = (list: string[], operation: ListedOperation) => list.includes(operation.toolName) || (operation.operationId !== undefined && list.includes(operation.operationId));
  const includesAll = selection.includeTags.length === 0 && selection.includeOperations.length === 0;
  return operations.filter(
    (operation) =>
      (includesAll || named(selection.includeOperations, operation) || operation.tags.some((tag) => selection.includeTags.includes(tag))) &&
      !named(selection.excludeOperations, operation) &&
      !operation.tags.some((tag) => selection.excludeTags.includes(tag)),
  );
}

function refuseCollisions(operations: ListedOperation[]): void {
  const seen = new Map<string, ListedOperation>();
  for (const operation of operations) {
    const earlier = seen.get(operation.toolName);
    if (earlier) throw new DocumentRefused(`${operation.field} and ${earlier.field} would both be the tool '${operation.toolName}': give them distinct operationIds or exclude one`, fieldPath(operation.field, "operationId"));
    seen.set(operation.toolName, operation);
  }
}

const describe = (listed: ListedOperation) => {
  const text = [listed.operation.summary, listed.operation.description].filter((part): part is string => typeof part === "string" && part.trim() !== "").join("\n\n");
  return `${text || listed.operationId || "Calls the API"} (${listed.method.toUpperCase()} ${listed.path})`;
};

/** The operations the selection keeps, as tools; a `DocumentRefused` or 400 names what is wrong. */
export function operationsOf(document: OpenApiDocument, selection: OperationSelection): Operation[] {
  const kept = selected(listOperations(document), selection);
  refuseCollisions(kept);
  const resolver = new RefResolver(document);
  const globalSecurity = Array.isArray(document.security) ? (document.security as SecurityRequirement[]) : undefined;
  return kept.map((listed) => {
    const { properties, required, parameters, body } = argumentsOf(listed, resolver);
    const security = Array.isArray(listed.operation.security) ? (listed.operation.security as SecurityRequirement[]) : globalSecurity;
    const inputSchema = { type: "object", properties, ...(required.length > 0 ? { required } : {}) };
    const summary = typeof listed.operation.summary === "string" ? listed.operation.summary : undefined;
    return { toolName: listed.toolName, operationId: listed.operationId, tags: listed.tags, summary, method: listed.method, path: listed.path, description: describe(listed), inputSchema, parameters, body, security };
  });
}

/** Path-item parameters, overridden by the operation's own of the same name and location. */
function parametersOf(listed: ListedOperation, resolver: RefResolver): Array<{ parameter: Json; field: string }> {
  const declared = (owner: Json, field: string) =>
    (Array.isArray(owner.parameters) ? owner.parameters : []).map((raw, index) => {
      const at = fieldPath(fieldPath(field, "parameters"), index);
      const parameter = resolver.resolve(raw, at);
      if (!isObject(parameter) || typeof parameter.name !== "string" || !["path", "query", "header", "cookie"].includes(parameter.in as string)) {
        throw new DocumentRefused("a parameter needs a name and an in of path, query, header or cookie", at);
      }
      return { parameter, field: at };
    });
  const own = declared(listed.operation, listed.field);
  const key = ({ parameter }: { parameter: Json }) => `${parameter.in as string}\0${parameter.name as string}`;
  const overridden = new Set(own.map(key));
  return [...declared(listed.item, fieldPath("paths", listed.path)).filter((entry) => !overridden.has(key(entry))), ...own];
}

/** The media type a body or parameter is sent as: JSON when offered, else a form, else the first listed. */
function pickContent(content: Json): [string, Json] | undefined {
  const types = Object.keys(content);
  const chosen = types.find((type) => type === "application/json") ?? types.find((type) => /\+json$|\/json/.test(type)) ?? types.find((type) => type === "application/x-www-form-urlencoded") ?? types[0];
  return chosen === undefined ? undefined : [chosen, isObject(content[chosen]) ? content[chosen] : {}];
}

function argumentsOf(listed: ListedOperation, resolver: RefResolver) {
  const properties: Json = {};
  const required: string[] = [];
  const parameters: OperationParameter[] = [];
  const requestBody = listed.operation.requestBody === undefined ? undefined : resolver.resolve(listed.operation.requestBody, fieldPath(listed.field, "requestBody"));
  const bodyContent = isObject(requestBody) && isObject(requestBody.content) ? pickContent(requestBody.content) : undefined;
  for (const { parameter } of parametersOf(listed, resolver)) {
    const location = parameter.in as ParameterLocation;
    const name = parameter.name as string;
    const argument = properties[name] !== undefined || (name === "body" && bodyContent) ? `${name}_${location}` : name;
    const content = isObject(parameter.content) ? pickContent(parameter.content) : undefined;
    const schema = isObject(parameter.schema) ? parameter.schema : (content?.[1].schema as Json | undefined) ?? {};
    properties[argument] = typeof parameter.description === "string" ? { ...schema, description: parameter.description } : schema;
    const isRequired = location === "path" || parameter.required === true;
    if (isRequired) required.push(argument);
    const explode = typeof parameter.explode === "boolean" ? parameter.explode : (parameter.style ?? "form") === "form";
    parameters.push({ name, in: location, argument, required: isRequired, explode, json: content !== undefined && parameter.schema === undefined });
  }
  if (!bodyContent || !isObject(requestBody)) return { properties, required, parameters, body: undefined };
  const [contentType, media] = bodyContent;
  const bodySchema = isObject(media.schema) ? media.schema : {};
  properties.body = { ...bodySchema, description: typeof requestBody.description === "string" ? requestBody.description : `The request body, sent as ${contentType}` };
  if (requestBody.required === true) required.push("body");
  return { properties, required, parameters, body: { contentType, required: requestBody.required === true } };
}
