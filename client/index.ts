/**
 * A typed client of the gateway's management API (`/api/...`), for scripts and the dashboard.
 * Paths, parameters, bodies and replies come from client/openapi.d.ts, generated from the
 * OpenAPI document the gateway serves (`npm run generate:client`); calls go through openapi-fetch.
 *
 *   const gateway = createGatewayClient("http://127.0.0.1:8080", { setupToken: process.env.TOKEN! });
 *   const { data, error } = await gateway.POST("/api/governance/virtual-keys", { body: { name: "ci" } });
 */
import createClient, { type Client, type ClientOptions, mergeHeaders } from "openapi-fetch";
import type { components, paths } from "./openapi";

export type { components, operations, paths } from "./openapi";

export type GatewayClient = Client<paths>;
/** The body of every error the gateway answers. */
export type GatewayErrorBody = components["schemas"]["GatewayError"];

type Method = "get" | "put" | "post" | "delete";
type JsonOf<Response> = Response extends { content: { "application/json": infer Json } } ? Json : never;
type SuccessStatus = 200 | 201 | 202;

/** What a call answers on success: `Reply<"/api/governance/virtual-keys", "post">`. */
export type Reply<Path extends keyof paths, M extends Method> = paths[Path][M] extends { responses: infer Responses } ? JsonOf<Responses[Extract<keyof Responses, SuccessStatus>]> : never;
/** The JSON body a call takes. */
export type RequestBody<Path extends keyof paths, M extends Method> = paths[Path][M] extends { requestBody?: { content: { "application/json": infer Json } } } ? Json : never;
/** The query parameters a call takes. */
export type QueryParameters<Path extends keyof paths, M extends Method> = paths[Path][M] extends { parameters: { query?: infer Query } } ? NonNullable<Query> : never;

/**
 * A management credential: the setup token (until a dashboard admin exists), or what goes after
 * `Authorization: Bearer`: a session token, a management API key, or base64(username:password).
 */
export type GatewayCredential = { setupToken: string } | { bearer: string };

function credentialHeaders(credential: GatewayCredential | undefined): Record<string, string> {
  if (!credential) return {};
  return "setupToken" in credential ? { "x-gateway-setup-token": credential.setupToken } : { authorization: `Bearer ${credential.bearer}` };
}

/**
 * A client of the gateway at `baseUrl` (its root, e.g. `http://127.0.0.1:8080`). Each call
 * answers `{ data, error, response }`: `data` on a 2xx, else `error`, the gateway's error body.
 * Without a credential, calls carry none (a page of the gateway's own site sends its session cookie).
 */
export function createGatewayClient(baseUrl: string, credential?: GatewayCredential, options: Omit<ClientOptions, "baseUrl"> = {}): GatewayClient {
  return createClient<paths>({ ...options, baseUrl, headers: mergeHeaders(credentialHeaders(credential), options.headers) });
}
