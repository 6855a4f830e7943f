/**
 * The errors each operation answers, each with the gateway's error body: which ones follow from
 * what the route is (management or inference, public or not, with inputs, addressing an item),
 * since every route raises them through the same layers (the access guard, validation, the
 * stores, the database, the upstream call).
 */

const ERRORS: Record<string, string> = {
  400: "The request is invalid: `error.param` names the bad field.",
  401: "No credential, or one the gateway does not know.",
  403: "The credential may not do this (`policy_permission_denied`), or the virtual key's policy refuses it.",
  404: "Nothing has this id or name.",
  409: "Another record already has this name or value (`caller_conflict`), or the record is in a state that forbids this.",
  413: "The request body is larger than `server.max_request_body_mb`.",
  429: "A rate limit or budget of the virtual key, its team or customer is spent: `retry-after` says when to try again.",
  500: "An error the gateway did not expect.",
  502: "The provider answered an error or could not be reached (`provider_` error types; `is_gateway_error` false when its body is passed along).",
  503: "The database is out of reach or busy (`gateway_database_unavailable`, with `retry-after`), or no provider key is available.",
  504: "The provider did not answer within its timeout.",
};

export const ERROR_RESPONSES = Object.fromEntries(
  Object.entries(ERRORS).map(([status, description]) => [
    `Error${status}`,
    { description, content: { "application/json": { schema: { $ref: "#/components/schemas/GatewayError" } } } },
  ]),
);

/** What kind of route a path is, for the errors it may answer. */
export type RouteKind = "management" | "public-management" | "inference" | "system" | "guarded-system";

export interface ErrorFacts {
  kind: RouteKind;
  method: string;
  /** The route reads a body, query or path parameters it validates. */
  hasInput: boolean;
  /** The path names one record (`{id}`, `{name}`). */
  addressesItem: boolean;
}

function statusesFor({ kind, method, hasInput, addressesItem }: ErrorFacts): number[] {
  const statuses = new Set<number>([500]);
  if (hasInput) statuses.add(400);
  if (addressesItem) statuses.add(404);
  switch (kind) {
    case "management":
      [401, 403, 503].forEach((status) => statuses.add(status));
      if (method === "post" || method === "put" || method === "patch") [409, 413].forEach((status) => statuses.add(status));
      break;
    case "public-management":
      statuses.add(503);
      break;
    case "inference":
      [400, 401, 403, 404, 413, 429, 502, 503, 504].forEach((status) => statuses.add(status));
      if (method === "get" || method === "delete") statuses.delete(413);
      break;
    case "guarded-system":
      statuses.add(401);
      break;
    case "system":
      break;
  }
  return [...statuses].sort((a, b) => a - b);
}

/** The operation's error responses, as references to the shared ones; statuses a route declares itself are kept. */
export function errorResponses(facts: ErrorFacts, declared: Record<string, unknown>): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const status of statusesFor(facts)) if (!declared[status]) responses[status] = { $ref: `#/components/responses/Error${status}` };
  return responses;
}
