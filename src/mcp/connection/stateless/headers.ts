/**
 * The headers a 2026-07-28 request mirrors from its body, so that proxies can route on them
 * without reading it: `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` (the tool or prompt name,
 * the resource URI) and `Mcp-Param-{Name}` for each argument the tool's input schema marks with
 * `x-mcp-header`.
 */
import { STATELESS_VERSION } from "../../server/stateless/wire";

const NAMED_BY: Record<string, "name" | "uri"> = { "tools/call": "name", "prompts/get": "name", "resources/read": "uri" };

const SENTINEL_PREFIX = "=?base64?";
const SENTINEL_SUFFIX = "?=";
const PLAIN_VALUE = /^[\x20-\x7e\t]*$/;

/** A value as an HTTP field value: as is when it is plain printable ASCII, else `=?base64?…?=` of its UTF-8. */
export function headerValue(value: string): string {
  const plain = value.length > 0 && value === value.trim() && PLAIN_VALUE.test(value) && !(value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX));
  return plain ? value : `${SENTINEL_PREFIX}${Buffer.from(value, "utf8").toString("base64")}${SENTINEL_SUFFIX}`;
}

type Schema = { properties?: Record<string, Schema>; "x-mcp-header"?: unknown };

/** A primitive argument as the header carries it; anything else is not mirrored. */
function primitiveText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number" && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

/** `Mcp-Param-*` for each annotated property (reached through `properties` only) that the arguments give a value. */
function paramHeaders(schema: Schema | undefined, args: unknown, into: Record<string, string> = {}): Record<string, string> {
  for (const [key, property] of Object.entries(schema?.properties ?? {})) {
    const value = typeof args === "object" && args !== null ? (args as Record<string, unknown>)[key] : undefined;
    const text = primitiveText(value);
    if (typeof property["x-mcp-header"] === "string" && text !== undefined) into[`Mcp-Param-${property["x-mcp-header"]}`] = headerValue(text);
    if (typeof value === "object" && value !== null) paramHeaders(property, value, into);
  }
  return into;
}

/** The mirrored headers of one request; `inputSchemaOf` knows the tools listed so far. */
export function mirroredHeaders(method: string, params: Record<string, unknown>, inputSchemaOf: (tool: string) => unknown): Record<string, string> {
  const headers: Record<string, string> = { "mcp-protocol-version": STATELESS_VERSION, "mcp-method": method };
  const field = NAMED_BY[method];
  const name = field ? params[field] : undefined;
  if (typeof name === "string") headers["mcp-name"] = headerValue(name);
  if (method === "tools/call" && typeof name === "string") Object.assign(headers, paramHeaders(inputSchemaOf(name) as Schema | undefined, params.arguments));
  return headers;
}
