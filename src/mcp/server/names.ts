import { keepsNames, type ToolFilter } from "../tools/filter";
import { isUiResource } from "./ui-resources";
import { exposedPromptOf, picksResource, promptOwner, resourceOwner } from "../virtual/bundle";

/**
 * How /mcp names what it aggregates: prompts `<client>-<prompt>` like tools, resource URIs and
 * templates `<client>+<uri>`; /mcp/{client} (a bound filter) keeps every name as its server gave
 * it; a virtual server names prompts as it chose and keeps URIs.
 */
export const exposedPromptName = (filter: ToolFilter, clientName: string, name: string) =>
  filter.virtual ? (exposedPromptOf(filter.virtual, clientName, name) ?? name) : filter.bound === undefined ? `${clientName}-${name}` : name;
export const exposedUri = (filter: ToolFilter, clientName: string, uri: string) => (keepsNames(filter) || isUiResource(uri) ? uri : `${clientName}+${uri}`);

/** Whether the door offers this prompt or resource of the client at all: a virtual server only its picks. */
export const offersPrompt = (filter: ToolFilter, clientName: string, name: string) => !filter.virtual || exposedPromptOf(filter.virtual, clientName, name) !== undefined;
export const offersResource = (filter: ToolFilter, clientName: string, uri: string) => !filter.virtual || picksResource(filter.virtual, clientName, uri);

/** The client and its own name behind an exposed one; undefined when the name has no client part. */
export function ownerOfName(filter: ToolFilter, exposed: string, separator: "-" | "+"): { clientName: string; name: string } | undefined {
  if (filter.bound !== undefined) return { clientName: filter.bound, name: exposed };
  if (filter.virtual) return separator === "+" ? resourceOwner(filter.virtual, exposed) : promptOwner(filter.virtual, exposed);
  const at = exposed.indexOf(separator);
  return at > 0 ? { clientName: exposed.slice(0, at), name: exposed.slice(at + 1) } : undefined;
}

/** A page of `items` from an opaque cursor (the offset, base64url); the next cursor while more remain. */
export function page<T>(items: T[], cursor: string | undefined, size: number): { items: T[]; nextCursor?: string } {
  const offset = cursor === undefined ? 0 : Number(Buffer.from(cursor, "base64url").toString());
  if (!Number.isInteger(offset) || offset < 0) throw new RangeError("invalid cursor");
  const end = offset + size;
  return { items: items.slice(offset, end), ...(end < items.length ? { nextCursor: Buffer.from(String(end)).toString("base64url") } : {}) };
}

type Block = { type: string; uri?: string; resource?: { uri: string } };

/** Resource links and embedded resources in content point at exposed URIs, so the caller can read them through the gateway. */
export function withExposedUris<T>(filter: ToolFilter, clientName: string, content: T): T {
  if (keepsNames(filter) || !content || typeof content !== "object") return content;
  const block = content as unknown as Block;
  if (block.type === "resource_link" && typeof block.uri === "string" && !isUiResource(block.uri)) return { ...block, uri: exposedUri(filter, clientName, block.uri) } as T;
  if (block.type === "resource" && block.resource && typeof block.resource.uri === "string" && !isUiResource(block.resource.uri)) return { ...block, resource: { ...block.resource, uri: exposedUri(filter, clientName, block.resource.uri) } } as T;
  return content;
}
