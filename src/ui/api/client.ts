import { createGatewayClient } from "../../../client";
import type { GatewayErrorBody } from "./types";

/** A refused or failed API call, with what the gateway said and the field it named. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly param?: string,
    readonly errorType?: string,
  ) {
    super(message);
  }

  get forbidden() {
    return this.status === 403;
  }
}

type Listener = () => void;
const expiryListeners = new Set<Listener>();

/** The session ended (expired, revoked, signed out elsewhere): the app goes back to sign-in. */
export function onSessionExpired(listener: Listener): () => void {
  expiryListeners.add(listener);
  return () => expiryListeners.delete(listener);
}

export type Query = Record<string, string | number | boolean | undefined | null>;

export function queryString(query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== null && value !== "") params.set(name, String(value));
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** The typed management client: paths relative to the page's own origin, its session cookie, empty filters left out of queries. */
export const api = createGatewayClient("", undefined, {
  credentials: "same-origin",
  headers: { accept: "application/json" },
  querySerializer: (query) => queryString(query as Query).slice(1),
});

/**
 * The page's filters as a route's query: they are built from the address bar (metadata keys
 * included) as names and values, which the route's schema checks when they arrive.
 */
export const filters = (query: Query) => query as Record<string, never>;

export function errorOf(response: Response, body: unknown): ApiError {
  const error = typeof body === "object" && body !== null ? (body as Partial<GatewayErrorBody>) : undefined;
  const message = error?.error?.message ?? `${response.status} ${response.statusText}`;
  return new ApiError(response.status, message, error?.error?.param, error?.extra_fields?.error_type ?? error?.error?.type);
}

interface Answer<Data> {
  data?: Data;
  error?: unknown;
  response: Response;
}

/**
 * What a call answered, or the ApiError its error body says. A 401 ends the session, except
 * for sign-in and setup calls (`expect401`), where it means a wrong secret.
 */
export async function answered<Data>(call: Promise<Answer<Data>>, { expect401 = false } = {}): Promise<Data> {
  const { data, error, response } = await call;
  if (response.ok) return data as Data;
  if (response.status === 401 && !expect401) for (const listener of expiryListeners) listener();
  throw errorOf(response, error);
}
