import { Elysia } from "elysia";
import { GatewayError } from "../http/errors";
import { LogFilterQuery, readLogFilters } from "./filters";
import type { LiveLogFeed, LogView } from "./live-feed";

/** Closes a socket that fell too far behind to be sent everything: it reconnects and reads the gap from GET /api/logs. */
const TRY_AGAIN_LATER = 1013;

/** What the socket says: `ready` once it is subscribed (every log stored after that follows), then each log as stored. */
const readyMessage = JSON.stringify({ type: "ready" });
const logMessage = (log: LogView) => JSON.stringify({ type: "log", operation: "create", payload: log });

const upgradeRequired = () =>
  new GatewayError({ status: 426, errorType: "caller_upgrade_required", message: "GET /api/ws is a WebSocket: send the upgrade request (`Upgrade: websocket`)" });

/**
 * GET /api/ws, the dashboard's notification WebSocket: every request log stored from the moment
 * it is open, as the list of GET /api/logs shows it, filtered by the same query parameters (but
 * the time range: the feed is what happens from now on). Needs `Logs:View`, like the logs.
 */
export function liveLogRoutes(feed: LiveLogFeed, clock: () => Date) {
  const unsubscribers = new Map<string, () => void>();
  return new Elysia({ name: "live-logs" })
    .get("/api/ws", () => {
      // Elysia routes an upgrade request to `.ws` below, and any other here.
      throw upgradeRequired();
    })
    .ws("/api/ws", {
      query: LogFilterQuery,
      async open(ws) {
        const unsubscribe = await feed.subscribe(readLogFilters(ws.data.query, clock()), (log) => {
          if (ws.send(logMessage(log)) !== 0) return true;
          ws.close(TRY_AGAIN_LATER, "too far behind: read the logs since the last one received from GET /api/logs, then reconnect");
          return false;
        });
        // The socket may have closed while the subscription was made.
        if (ws.readyState !== WebSocket.OPEN) return unsubscribe();
        unsubscribers.set(ws.id, unsubscribe);
        ws.send(readyMessage);
      },
      close(ws) {
        unsubscribers.get(ws.id)?.();
        unsubscribers.delete(ws.id);
      },
    });
}
