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

async function errorOf(response: Response): Promise<ApiError> {
  const body = (await response.json().catch(() => undefined)) as GatewayErrorBody | undefined;
  const message = body?.error?.message ?? `${response.status} ${response.statusText}`;
  return new ApiError(response.status, message, body?.error?.param, body?.extra_fields?.error_type ?? body?.error?.type);
}

export interface CallOptions {
  method?: "GET" | "POST" | "PUT" | "DELETE";
  query?: Query;
  body?: unknown;
  headers?: Record<string, string>;
  /** Sign-in and setup calls expect a 401 for a wrong secret: it does not mean the session ended. */
  expect401?: boolean;
  signal?: AbortSignal;
}

/** One management call with the session cookie; the error body becomes an ApiError. */
export async function call<T>(path: string, options: CallOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json", ...options.headers };
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(path + queryString(options.query), {
    method: options.method ?? "GET",
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    credentials: "same-origin",
    signal: options.signal,
  });
  if (!response.ok) {
    const error = await errorOf(response);
    if (response.status === 401 && !options.expect401) for (const listener of expiryListeners) listener();
    throw error;
  }
  return (await response.json()) as T;
}
