/**
 * `Mcp-Param-{Name}` headers (spec: Custom Headers from Tool Parameters): a tool's input schema
 * may mark a property with `x-mcp-header`, and a client mirrors that argument in a header, so
 * that a proxy can route on it. The server must refuse a call whose header and argument differ.
 */

const SENTINEL = /^=\?base64\?(.*)\?=$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

type Schema = { properties?: Record<string, Schema>; "x-mcp-header"?: unknown };

/** A header value as sent: `=?base64?…?=` is decoded (undefined if it is not valid Base64), anything else is literal. */
export function decodedHeaderValue(value: string): string | undefined {
  const encoded = SENTINEL.exec(value);
  if (!encoded) return value;
  return BASE64.test(encoded[1]!) ? Buffer.from(encoded[1]!, "base64").toString("utf8") : undefined;
}

/** Each annotated property, reached through `properties` only, with its header name and path. */
function annotated(schema: Schema, path: string[] = []): { header: string; path: string[] }[] {
  return Object.entries(schema.properties ?? {}).flatMap(([key, property]) => {
    const here = [...path, key];
    const own = typeof property["x-mcp-header"] === "string" ? [{ header: property["x-mcp-header"], path: here }] : [];
    return [...own, ...annotated(property, here)];
  });
}

const valueAt = (args: unknown, path: string[]) => path.reduce<unknown>((value, key) => (typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined), args);

/** What is wrong with the call's `Mcp-Param-*` headers for this input schema, if anything. */
export function paramHeaderMismatch(headers: Headers, inputSchema: unknown, args: unknown): string | undefined {
  if (typeof inputSchema !== "object" || inputSchema === null) return undefined;
  for (const { header, path } of annotated(inputSchema as Schema)) {
    const name = `Mcp-Param-${header}`;
    const sent = headers.get(name);
    const value = valueAt(args, path);
    if (value === undefined || value === null) {
      if (sent !== null) return `${name} is sent but arguments.${path.join(".")} is not`;
      continue;
    }
    if (sent === null) return `${name} is missing: arguments.${path.join(".")} has a value`;
    const decoded = decodedHeaderValue(sent);
    if (decoded === undefined) return `${name} is not valid Base64`;
    if (decoded !== String(value)) return `${name} does not match arguments.${path.join(".")}`;
  }
  return undefined;
}
