import { Elysia } from "elysia";
import { holds } from "../access/principal";
import { principalOf } from "../access/request-context";
import { upgradeRequired } from "../http/errors";
import { sentReplies } from "../http/replies";
import { LogFilterQuery, readLogFilters } from "./filters";
import type { LiveFeed } from "./live-feed";

/** Closes a socket that fell too far behind to be sent everything: it reconnects and reads the gap from the APIs. */
const TRY_AGAIN_LATER = 1013;

/** What the socket says first: it is subscribed, and every change stored after this follows. */
const readyMessage = JSON.stringify({ type: "ready" });

/**
 * GET /api/ws, the dashboard's notification WebSocket: `ready`, then every request log stored
 * from then on (`log`), as the list of GET /api/logs shows it and filtered by the same query
 * parameters but the time range, and every MCP tool call as it starts and ends (`mcp_log`) for a
 * caller who may read those. Needs `Logs:View`, like the logs.
 */
export function liveFeedRoutes(feed: LiveFeed, clock: () => Date) {
  const unsubscribers = new Map<string, () => void>();
  return new Elysia({ name: "live-feed" })
    .get(
      "/api/ws",
      () => {
        // Elysia routes an upgrade request to `.ws` below, and any other here.
        throw upgradeRequired("GET /api/ws");
      },
      sentReplies(
        { 101: { description: "Switching Protocols: the socket sends JSON text messages, `{\"type\":\"ready\"}` first, then `log` (a row as GET /api/logs lists it) and `mcp_log` messages as they are stored. A GET that asks no upgrade is a 426." } },
        { summary: "Follow request logs and MCP tool calls live" },
      ),
    )
    .ws("/api/ws", {
      query: LogFilterQuery,
      async open(ws) {
        const principal = principalOf(ws.data.request);
        const sources = feed.sources.filter((source) => holds(principal, source.permission));
        const unsubscribe = await feed.subscribe(sources, readLogFilters(ws.data.query, clock()), (message) => {
          if (ws.send(message) !== 0) return true;
          ws.close(TRY_AGAIN_LATER, "too far behind: read what came since the last change received from the APIs, then reconnect");
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
