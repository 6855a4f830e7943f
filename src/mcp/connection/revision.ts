import type { Static } from "@sinclair/typebox";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ProtocolVersionSetting } from "../clients/schemas";
import type { McpClientSdk } from "../sdk";
import { STATELESS_VERSION } from "../server/stateless/wire";
import { discover, RevisionNotOffered } from "./stateless/discover";
import type { ClientIdentity } from "./stateless/envelope";
import type { StatelessEndpoint } from "./stateless/exchange";
import { StatelessTransport } from "./stateless/transport";

/** Which revision an http client speaks: `auto` tries 2026-07-28 and falls back to the initialize handshake (2025-11-25 and older). */
export type ProtocolSetting = Static<typeof ProtocolVersionSetting>;

export interface HttpUpstream {
  url: URL;
  headers: Record<string, string>;
  fetch: FetchLike;
  authProvider?: OAuthClientProvider;
}

/** The 2026-07-28 wire's view of the server: the configured headers and the access token on each request, the SDK's `auth()` on a refusal. */
function statelessEndpoint(sdk: McpClientSdk, upstream: HttpUpstream): StatelessEndpoint {
  const { url, fetch, authProvider } = upstream;
  return {
    url,
    fetch,
    sdk,
    async headers() {
      const token = (await authProvider?.tokens())?.access_token;
      return { ...upstream.headers, ...(token ? { authorization: `Bearer ${token}` } : {}) };
    },
    // Records a refresh refused or a consent lost, as the SDK's own transport does.
    refused: authProvider && (() => sdk.auth(authProvider, { serverUrl: url, fetchFn: fetch }).then(() => undefined)),
  };
}

/**
 * How long a server that answered server/discover as an earlier revision does is not asked again
 * by the sessions opened for one call or one caller (per-user credentials, session links): each
 * would pay a request for the same answer. The shared connection asks at every connect.
 */
const HANDSHAKE_REMEMBERED_MS = 10 * 60_000;
const handshakeUntil = new Map<string, number>();

/** How a transport is opened: who the gateway says it is upstream, how long discovery may take, whether list changes are listened for. */
export interface TransportNeeds {
  identity: ClientIdentity;
  timeoutMs: number;
  watchLists: boolean;
}

/**
 * The transport of an http client: the 2026-07-28 wire when `server/discover` says the server
 * speaks it (one request at connect), the SDK's Streamable HTTP transport and its initialize
 * handshake otherwise. A setting that pins a revision skips the other: pinned to 2026-07-28, a
 * server that does not offer it fails to connect, saying why.
 */
export async function httpTransport(sdk: McpClientSdk, upstream: HttpUpstream, setting: ProtocolSetting, { identity, timeoutMs, watchLists }: TransportNeeds): Promise<Transport> {
  const handshake = () => new sdk.StreamableHTTPClientTransport(upstream.url, { requestInit: { headers: upstream.headers }, fetch: upstream.fetch, authProvider: upstream.authProvider });
  const server = upstream.url.href;
  if (setting === "2025-11-25" || (setting === "auto" && !watchLists && (handshakeUntil.get(server) ?? 0) > Date.now())) return handshake();
  const endpoint = statelessEndpoint(sdk, upstream);
  try {
    const discovery = await discover(endpoint, identity, AbortSignal.timeout(timeoutMs));
    handshakeUntil.delete(server);
    return new StatelessTransport({ endpoint, discovery, identity, watchLists });
  } catch (error) {
    if (setting === STATELESS_VERSION) throw error;
    if (error instanceof RevisionNotOffered) handshakeUntil.set(server, Date.now() + HANDSHAKE_REMEMBERED_MS);
    return handshake();
  }
}
