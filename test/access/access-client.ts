import { expect } from "bun:test";
import type { TestGateway } from "../support/gateway";

/** The dashboard admin account the auth-enabled test deployments configure. */
export const ADMIN = { username: "operator", password: "correct horse battery staple" } as const;
export const AUTH_CONFIG = { admin_username: ADMIN.username, admin_password: ADMIN.password };

export interface CallInit {
  method?: string;
  headers?: Record<string, string>;
  json?: unknown;
}

/** A management call carrying only the headers given: no operator credentials. */
export function call(gw: TestGateway, path: string, init: CallInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (init.json !== undefined) headers.set("content-type", "application/json");
  return fetch(`${gw.url}${path}`, { method: init.method ?? "GET", headers, body: init.json === undefined ? undefined : JSON.stringify(init.json) });
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
export const basicToken = (username: string, password: string) => Buffer.from(`${username}:${password}`).toString("base64");

export async function login(gw: TestGateway, username: string, password: string): Promise<string> {
  const response = await call(gw, "/api/session/login", { method: "POST", json: { username, password } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { token: string }).token;
}

/** Permission ids by name, read from the catalogue the gateway serves. */
export async function permissionIds(gw: TestGateway, ...names: string[]): Promise<number[]> {
  const response = await gw.admin("/api/governance/rbac/permissions");
  expect(response.status).toBe(200);
  const { permissions } = (await response.json()) as { permissions: Array<{ id: number; name: string }> };
  return names.map((name) => {
    const found = permissions.find((permission) => permission.name === name);
    if (!found) throw new Error(`no permission ${name} in the catalogue`);
    return found.id;
  });
}

/** Creates a management API key as the operator and returns its value. */
export async function createApiKey(gw: TestGateway, name: string, scopes: string[], extra: Record<string, unknown> = {}): Promise<string> {
  const response = await gw.admin("/api/api-keys", { method: "POST", json: { name, scopes: await permissionIds(gw, ...scopes), ...extra } });
  expect(response.status).toBe(201);
  return ((await response.json()) as { key: string }).key;
}

export async function json<T = Record<string, unknown>>(response: Response, status = 200): Promise<T> {
  const text = await response.text();
  expect({ status: response.status, text }).toMatchObject({ status });
  return JSON.parse(text) as T;
}

/** The Set-Cookie header a response carries for one cookie. */
export function setCookie(response: Response, name: string): string | undefined {
  return response.headers.getSetCookie().find((cookie) => cookie.startsWith(`${name}=`));
}

export const cookieValue = (header: string) => header.slice(header.indexOf("=") + 1, header.indexOf(";"));
