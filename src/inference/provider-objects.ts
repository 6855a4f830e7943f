import type { HttpMethod } from "./providers/types";

/**
 * Objects OpenAI's API keeps for its clients (responses, conversations): each call on one is a
 * method and a path under the API root, the same on OpenAI's and Azure's v1 surface. The paths
 * are also the gateway's routes, under every OpenAI-format mount.
 */
export const PROVIDER_OBJECT_CALLS = {
  response_retrieve: { method: "GET", path: "/responses/:id", requestType: "response.retrieve" },
  response_input_items: { method: "GET", path: "/responses/:id/input_items", requestType: "response.input_items" },
  response_delete: { method: "DELETE", path: "/responses/:id", requestType: "response.delete" },
  response_cancel: { method: "POST", path: "/responses/:id/cancel", requestType: "response.cancel" },
  conversation_create: { method: "POST", path: "/conversations", requestType: "conversation.create" },
  conversation_retrieve: { method: "GET", path: "/conversations/:id", requestType: "conversation.retrieve" },
  conversation_update: { method: "POST", path: "/conversations/:id", requestType: "conversation.update" },
  conversation_delete: { method: "DELETE", path: "/conversations/:id", requestType: "conversation.delete" },
  conversation_items_list: { method: "GET", path: "/conversations/:id/items", requestType: "conversation.items.list" },
  conversation_items_create: { method: "POST", path: "/conversations/:id/items", requestType: "conversation.items.create" },
  conversation_item_retrieve: { method: "GET", path: "/conversations/:id/items/:item_id", requestType: "conversation.item.retrieve" },
  conversation_item_delete: { method: "DELETE", path: "/conversations/:id/items/:item_id", requestType: "conversation.item.delete" },
} as const satisfies Record<string, { method: HttpMethod; path: string; requestType: string }>;

export type ProviderObjectOperation = keyof typeof PROVIDER_OBJECT_CALLS;

export const PROVIDER_OBJECT_OPERATIONS = Object.keys(PROVIDER_OBJECT_CALLS) as ProviderObjectOperation[];

/** What reaches the adapter of a call on a kept object: the path with its ids filled in, the client's query string, its JSON body. */
export type ProviderObjectBody = { path: string; search: string; json?: unknown };

/** The call's path under the API root, each `:param` replaced by its value. */
export const providerObjectPath = (operation: ProviderObjectOperation, params: Record<string, string>) =>
  PROVIDER_OBJECT_CALLS[operation].path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ""));
