import { badRequest } from "../../http/errors";
import type { OpenApiSource } from "../../db/schema";
import type { OpenApiInput } from "./schemas";
import type { OpenApiSettings } from "./source";

/** The settings of a written `openapi` object; the document comes inline or from `documentUrl`, not both. */
export function settingsFromInput(input: OpenApiInput, documentUrl: string | undefined): OpenApiSettings {
  if (input.document !== undefined && documentUrl !== undefined) throw badRequest("give the document inline (openapi.document) or its URL (connection_string), not both", "openapi.document");
  if (input.document === undefined && documentUrl === undefined) throw badRequest("an openapi client needs connection_string (the document's URL) or openapi.document", "connection_string");
  const settings: OpenApiSettings = {
    document: input.document,
    baseUrl: input.base_url,
    selection: { includeTags: input.include_tags ?? [], includeOperations: input.include_operations ?? [], excludeTags: input.exclude_tags ?? [], excludeOperations: input.exclude_operations ?? [] },
    credentials: input.credentials ?? {},
  };
  // Read back from the database a configuration has no undefined fields: a difference means a change.
  if (settings.document === undefined) delete settings.document;
  if (settings.baseUrl === undefined) delete settings.baseUrl;
  return settings;
}

export const inputFromSettings = (settings: OpenApiSettings): OpenApiInput => ({
  document: settings.document,
  base_url: settings.baseUrl,
  include_tags: settings.selection.includeTags,
  include_operations: settings.selection.includeOperations,
  exclude_tags: settings.selection.excludeTags,
  exclude_operations: settings.selection.excludeOperations,
  credentials: settings.credentials,
});

/** The settings as the management API shows them, but for the credentials (the view redacts them). */
export const viewOfSettings = (settings: OpenApiSettings) => ({
  document_inline: settings.document !== undefined,
  base_url: settings.baseUrl ?? null,
  include_tags: settings.selection.includeTags,
  include_operations: settings.selection.includeOperations,
  exclude_tags: settings.selection.excludeTags,
  exclude_operations: settings.selection.excludeOperations,
});

/** What is stored in the clear: everything but the credentials. */
export const sourceOf = ({ credentials: _, ...source }: OpenApiSettings): OpenApiSource => source;

interface DocumentSource {
  connection_string?: string;
  openapi?: OpenApiInput;
}

/**
 * An update's `openapi` merged field by field over the stored one (its credentials with redacted
 * values restored already); a new document URL replaces an inline document, and the other way round.
 */
export function mergeOpenApi(stored: OpenApiSettings, current: DocumentSource, changes: DocumentSource): DocumentSource {
  const base = inputFromSettings(stored);
  const incoming = changes.openapi ?? {};
  const openapi: OpenApiInput = { ...base, ...incoming, credentials: incoming.credentials ?? base.credentials };
  const newUrl = changes.connection_string !== undefined && incoming.document === undefined;
  if (newUrl) delete openapi.document;
  return { connection_string: incoming.document !== undefined && changes.connection_string === undefined ? undefined : (changes.connection_string ?? current.connection_string), openapi };
}
