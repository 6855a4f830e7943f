import { Value } from "@sinclair/typebox/value";
import { McpToolSearch } from "../../db/schema/types";
import { badRequest } from "../../http/errors";
import { fieldFromPath } from "../../http/field-path";

export const TOOL_SEARCH_HEADER = "x-gw-mcp-tool-search";
/** The body field a chat request may carry; it is removed before the body goes upstream. */
export const TOOL_SEARCH_FIELD = "mcp_tool_search";
export const DEFAULT_MAX_RESULTS = 5;

/** Tool search as one request uses it. */
export interface ToolSearchOptions {
  /** Tools offered from the start, by the names the caller knows them by. */
  pinned: readonly string[];
  /** Tools one search answers at most. */
  maxResults: number;
}

/** The body without the tool search field, and the field's value. */
export function takeToolSearchField(body: Record<string, unknown>): { body: Record<string, unknown>; field: unknown } {
  if (!(TOOL_SEARCH_FIELD in body)) return { body, field: undefined };
  const { [TOOL_SEARCH_FIELD]: field, ...rest } = body;
  return { body: rest, field };
}

function headerSwitch(headers: Headers): boolean | undefined {
  const raw = headers.get(TOOL_SEARCH_HEADER);
  if (raw === null) return undefined;
  const value = raw.trim().toLowerCase();
  if (value !== "true" && value !== "false") throw badRequest(`${TOOL_SEARCH_HEADER} must be true or false`, TOOL_SEARCH_HEADER);
  return value === "true";
}

/** The body's setting: `true`/`false`, or an object that turns search on unless its `enabled` is false. */
function bodySetting(value: unknown): McpToolSearch | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "boolean") return { enabled: value };
  const error = Value.Errors(McpToolSearch, value).First();
  if (error) {
    const field = fieldFromPath(`/${TOOL_SEARCH_FIELD}${error.path}`);
    throw badRequest(`${field}: ${error.message} (expected true, false or { enabled, pinned, max_results })`, field);
  }
  return { enabled: true, ...(value as McpToolSearch) };
}

/**
 * A chat request's tool search, or undefined when off: the header, then the body field, then the
 * virtual key's setting decide whether it is on; the body's `pinned` and `max_results` replace the key's.
 * Throws a 400 naming the header or field that is not valid.
 */
export function toolSearchOf(headers: Headers, bodyValue: unknown, keySetting: McpToolSearch | null | undefined): ToolSearchOptions | undefined {
  const body = bodySetting(bodyValue);
  const enabled = headerSwitch(headers) ?? body?.enabled ?? keySetting?.enabled ?? false;
  if (!enabled) return undefined;
  return { pinned: body?.pinned ?? keySetting?.pinned ?? [], maxResults: body?.max_results ?? keySetting?.max_results ?? DEFAULT_MAX_RESULTS };
}
