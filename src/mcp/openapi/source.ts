import type { EnvReader } from "../../config/env-reference";
import type { OpenApiSource } from "../../db/schema";
import { badRequest } from "../../http/errors";
import { fetchUnder } from "../../outbound/guarded-fetch";
import type { OutboundPolicy } from "../../outbound/host-check";
import { fetchDocumentText, isObject, type OpenApiDocument, parseDocument } from "./document";
import { type Operation, operationsOf } from "./operations";
import type { ApiTarget } from "./request";
import { checkCredentials, securitySchemesOf } from "./security";

/** How long fetching a document may take. */
export const DOCUMENT_TIMEOUT_MS = 30_000;

/**
 * An OpenAPI client's own settings: the document's text when it was given inline (else it is
 * fetched from the client's connection_string), the base URL when not the document's first
 * server, the operations kept, and the values by security scheme name (secrets: sealed at rest,
 * redacted in views; `env.NAME` allowed).
 */
export interface OpenApiSettings extends OpenApiSource {
  credentials: Record<string, string>;
}

/** A loaded API: the operations the selection keeps and where their requests go. */
export interface LoadedApi {
  document: OpenApiDocument;
  operations: Operation[];
  /** The resolved base URL; `fromDocument` when the document's servers named it (its address is then checked apart). */
  baseUrl: { url: string; fromDocument: boolean };
}

/** Server variables take their defaults: `https://{region}.example.com` with region's default. */
function withVariables(server: Record<string, unknown>): string {
  const variables = isObject(server.variables) ? server.variables : {};
  return String(server.url).replace(/\{([^}]+)\}/g, (match, name: string) => {
    const variable = variables[name];
    return isObject(variable) && typeof variable.default === "string" ? variable.default : match;
  });
}

/** The base URL: the settings', or the document's first server (relative to where the document came from). */
function baseUrlOf(document: OpenApiDocument, settings: OpenApiSettings, documentUrl: string | undefined): LoadedApi["baseUrl"] {
  if (settings.baseUrl) return { url: settings.baseUrl.replace(/\/+$/, ""), fromDocument: false };
  const server = Array.isArray(document.servers) ? document.servers[0] : undefined;
  if (!isObject(server) || typeof server.url !== "string") throw badRequest("the document names no servers: set openapi.base_url to the API's address", "openapi.base_url");
  const url = URL.parse(withVariables(server), documentUrl);
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) throw badRequest(`the document's server '${server.url}' is no http(s) address: set openapi.base_url`, "openapi.base_url");
  return { url: url.href.replace(/\/+$/, ""), fromDocument: true };
}

/** Reads the document (inline, or fetched under `policy`), and builds its tools; `DocumentRefused` or a 400 says what is wrong. */
export async function loadApi(settings: OpenApiSettings, documentUrl: string | undefined, policy: OutboundPolicy): Promise<LoadedApi> {
  const text = settings.document ?? (documentUrl ? await fetchDocumentText(documentUrl, policy, DOCUMENT_TIMEOUT_MS) : undefined);
  if (text === undefined) throw badRequest("an openapi client needs connection_string (the document's URL) or openapi.document", "connection_string");
  const document = parseDocument(text);
  const operations = operationsOf(document, settings.selection);
  checkCredentials(settings.credentials, securitySchemesOf(document));
  return { document, operations, baseUrl: baseUrlOf(document, settings, documentUrl) };
}

const resolved = (values: Record<string, string>, readEnv: EnvReader) => Object.fromEntries(Object.entries(values).map(([name, value]) => [name, readEnv(value)]));

/** Where a loaded API's calls go, with the client's headers (resolved already) and credentials, through the policy's fetch. */
export function targetOf(api: LoadedApi, settings: OpenApiSettings, headers: Record<string, string>, readEnv: EnvReader, policy: OutboundPolicy): ApiTarget {
  return { baseUrl: api.baseUrl.url, headers, credentials: resolved(settings.credentials, readEnv), schemes: securitySchemesOf(api.document), fetch: fetchUnder(policy) };
}
