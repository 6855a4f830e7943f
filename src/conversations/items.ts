import { badRequest } from "../http/errors";
import { partsOf } from "../responses/input-items";

export type Item = Record<string, unknown>;

/** OpenAI's limits: items a create or an add takes at once, and a metadata map's size. */
export const MAX_ITEMS_PER_CALL = 20;
const MAX_METADATA_KEYS = 16;
const MAX_METADATA_KEY = 64;
const MAX_METADATA_VALUE = 512;

const MESSAGE_ROLES = new Set(["user", "assistant", "system", "developer"]);

const hexId = () => crypto.randomUUID().replaceAll("-", "");

const newIdOf = (type: unknown) => `${type === "message" ? "msg" : "item"}_${hexId()}`;

/**
 * An item as a conversation keeps it, the way OpenAI lists it: typed, a message's text as parts,
 * with an id (its own, or a new one) and a status.
 */
export function keptItem(raw: Item): Item {
  const type = typeof raw.type === "string" ? raw.type : "message";
  const kept: Item = type === "message" ? { ...raw, type, content: partsOf(raw.role, raw.content) } : { ...raw, type };
  kept.id ??= newIdOf(type);
  if (type === "message") kept.status ??= "completed";
  return kept;
}

/**
 * The items with ids no other item of the conversation has: one whose id is `taken`, or repeats
 * an earlier one's, gets a new id. Ids from a provider may repeat (a server whose chat ids do),
 * and an item is read and deleted by its id.
 */
export function withUniqueIds(items: readonly Item[], taken: ReadonlySet<string>): Item[] {
  const seen = new Set(taken);
  return items.map((item) => {
    const unique = seen.has(String(item.id)) ? { ...item, id: newIdOf(item.type) } : item;
    seen.add(String(unique.id));
    return unique;
  });
}

/**
 * A kept item as the next turn's input: a message the caller wrote goes without the id and
 * status the conversation gave it, which OpenAI's API takes only on the model's own messages.
 */
export function inputOf(item: Item): Item {
  if (item.type !== "message" || item.role === "assistant") return item;
  const { id: _id, status: _status, ...input } = item;
  return input;
}

/** The `items` of a create or an add: at most 20 objects, each message with a known role. */
export function checkedItems(value: unknown, field: string, required: boolean): Item[] {
  if (value === undefined && !required) return [];
  if (!Array.isArray(value)) throw badRequest(`${field} must be an array of items`, field);
  if (value.length > MAX_ITEMS_PER_CALL) throw badRequest(`${field} holds ${value.length} items; at most ${MAX_ITEMS_PER_CALL} are added at once`, field);
  return value.map((item: unknown, index) => {
    const at = `${field}[${index}]`;
    if (typeof item !== "object" || item === null || Array.isArray(item)) throw badRequest(`${at} must be an object`, at);
    const { type, role, content } = item as Item;
    if (type !== undefined && typeof type !== "string") throw badRequest(`${at}.type must be a string`, `${at}.type`);
    if (type === undefined || type === "message") {
      if (!MESSAGE_ROLES.has(role as string)) throw badRequest(`${at}.role must be one of user, assistant, system, developer`, `${at}.role`);
      if (typeof content !== "string" && !Array.isArray(content)) throw badRequest(`${at}.content must be a string or an array of parts`, `${at}.content`);
    }
    return item as Item;
  });
}

/** A conversation's `metadata`: at most 16 string values, keys up to 64 characters and values up to 512. */
export function checkedMetadata(value: unknown): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) throw badRequest("metadata must be an object of strings", "metadata");
  const entries = Object.entries(value);
  if (entries.length > MAX_METADATA_KEYS) throw badRequest(`metadata holds ${entries.length} keys; at most ${MAX_METADATA_KEYS} are kept`, "metadata");
  for (const [key, entry] of entries) {
    if (key.length > MAX_METADATA_KEY) throw badRequest(`metadata key '${key.slice(0, 20)}…' is longer than ${MAX_METADATA_KEY} characters`, "metadata");
    if (typeof entry !== "string") throw badRequest(`metadata.${key} must be a string`, `metadata.${key}`);
    if (entry.length > MAX_METADATA_VALUE) throw badRequest(`metadata.${key} is longer than ${MAX_METADATA_VALUE} characters`, `metadata.${key}`);
  }
  return value as Record<string, string>;
}
