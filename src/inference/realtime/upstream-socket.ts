import { GatewayError } from "../../http/errors";
import type { PreparedConnection } from "../dispatch";

/** The handshake's URL as the adapter built it (`https://…/v1/realtime?model=…`), in the WebSocket scheme. */
function socketUrl({ call }: PreparedConnection): string {
  const url = new URL(call.url);
  url.protocol = url.protocol === "http:" ? "ws:" : "wss:";
  return url.toString();
}

const unreachable = (provider: string, why: string) =>
  new GatewayError({ status: 502, errorType: "provider_unreachable", message: `provider '${provider}' did not open a Realtime session: ${why}`, extra: { provider } });

/**
 * Opens the provider's side of a Realtime session and resolves once it is open. A refused or
 * failed handshake (a bad key, an unknown model: the provider answers it before any event) is a
 * 502, as is no answer within the provider's request timeout.
 */
export function openUpstreamSocket(provider: string, prepared: PreparedConnection): Promise<WebSocket> {
  const timeoutMs = prepared.timeoutSeconds * 1000;
  return new Promise((resolve, reject) => {
    // Bun's WebSocket takes handshake headers, which the browser's does not. The adapter's
    // handshake call (realtimeHandshake) carries none of an HTTP body's.
    const socket = new WebSocket(socketUrl(prepared), { headers: prepared.call.headers } as unknown as string[]);
    const settle = (error?: GatewayError) => {
      clearTimeout(timer);
      socket.removeEventListener("open", opened);
      socket.removeEventListener("close", closed);
      if (!error) return resolve(socket);
      socket.close();
      reject(error);
    };
    const opened = () => settle();
    const closed = (event: CloseEvent) => settle(unreachable(provider, `the handshake failed${event.reason ? ` (${event.reason})` : ""}`));
    const timer = setTimeout(() => settle(unreachable(provider, `no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    socket.addEventListener("open", opened);
    socket.addEventListener("close", closed);
  });
}
