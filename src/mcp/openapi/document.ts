import { parse as parseYaml } from "yaml";
import { guardedFetch } from "../../outbound/guarded-fetch";
import type { OutboundPolicy } from "../../outbound/host-check";

/** A JSON object as the document holds it. */
export type Json = Record<string, unknown>;

/** An OpenAPI 3.x document, checked only as far as the tools need it. */
export interface OpenApiDocument extends Json {
  openapi: string;
  paths: Record<string, Json>;
}

/** What is wrong with a document, and where in it (`paths["/pets"].get.operationId`; empty for the whole text). */
export class DocumentRefused extends Error {
  constructor(
    message: string,
    readonly field = "",
  ) {
    super(message);
  }
}

/** A document's field path: `paths["/pets/{id}"].get`, readable and unambiguous for keys with slashes. */
export const fieldPath = (parent: string, key: string | number) =>
  typeof key === "number" ? `${parent}[${key}]` : /^[A-Za-z_$][\w$]*$/.test(key) ? (parent ? `${parent}.${key}` : key) : `${parent}[${JSON.stringify(key)}]`;

export const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** What the largest document may weigh: a big public API's is a few megabytes. */
export const MAX_DOCUMENT_BYTES = 8 * 1024 * 1024;

function parseText(text: string): unknown {
  const trimmed = text.trimStart();
  try {
    return trimmed.startsWith("{") ? JSON.parse(trimmed) : parseYaml(text, { maxAliasCount: 100 });
  } catch (error) {
    throw new DocumentRefused(`the document is neither JSON nor YAML: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
  }
}

/** The document in a text, JSON or YAML: a 3.x version and a paths object, or a `DocumentRefused` naming the field. */
export function parseDocument(text: string): OpenApiDocument {
  const parsed = parseText(text);
  if (!isObject(parsed)) throw new DocumentRefused("the document must be an object with openapi and paths");
  if (typeof parsed.openapi !== "string" || !/^3\.\d+/.test(parsed.openapi)) {
    const found = parsed.swagger !== undefined ? "Swagger 2.0 (convert it to OpenAPI 3 first)" : JSON.stringify(parsed.openapi ?? null);
    throw new DocumentRefused(`openapi must name version 3.x; found ${found}`, "openapi");
  }
  if (!isObject(parsed.paths)) throw new DocumentRefused("paths must be an object of the API's paths", "paths");
  for (const [path, item] of Object.entries(parsed.paths)) {
    if (!path.startsWith("/")) throw new DocumentRefused(`a path must start with '/'`, fieldPath("paths", path));
    if (!isObject(item)) throw new DocumentRefused("a path item must be an object", fieldPath("paths", path));
  }
  return parsed as OpenApiDocument;
}

/** The document's text at a URL, under the outbound address policy, bounded in time and size. */
export async function fetchDocumentText(url: string, policy: OutboundPolicy, timeoutMs: number): Promise<string> {
  let response: Response;
  try {
    response = await guardedFetch(url, { headers: { accept: "application/json, application/yaml, text/yaml, */*" }, signal: AbortSignal.timeout(timeoutMs) }, policy);
  } catch (error) {
    throw new DocumentRefused(`the document could not be fetched: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new DocumentRefused(`the document could not be fetched: HTTP ${response.status}`);
  }
  const declared = Number(response.headers.get("content-length") ?? 0);
  if (declared > MAX_DOCUMENT_BYTES) {
    await response.body?.cancel();
    throw new DocumentRefused(`the document is larger than ${MAX_DOCUMENT_BYTES} bytes`);
  }
  const text = await response.text();
  if (text.length > MAX_DOCUMENT_BYTES) throw new DocumentRefused(`the document is larger than ${MAX_DOCUMENT_BYTES} bytes`);
  return text;
}
