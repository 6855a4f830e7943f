import { useEffect, useRef, useState } from "preact/hooks";
import { queryString, type Query } from "../api/client";
import type { LogSummary } from "../api/types";

type FeedState = "connecting" | "live" | "closed";

const RECONNECT_MS = 2000;

/**
 * The gateway's notification socket (/api/ws): every request log as it is stored, filtered by
 * the same query as the logs list. Reconnects when dropped; `onLog` sees each new row.
 */
export function useLiveLogs(enabled: boolean, query: Query, onLog: (log: LogSummary) => void): FeedState {
  const [state, setState] = useState<FeedState>("closed");
  const handler = useRef(onLog);
  handler.current = onLog;
  const key = queryString(query);
  useEffect(() => {
    if (!enabled) return setState("closed");
    let socket: WebSocket | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const connect = () => {
      setState("connecting");
      socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/ws${key}`);
      socket.onmessage = (event) => {
        const message = JSON.parse(String(event.data)) as { type: string; payload?: LogSummary };
        if (message.type === "ready") setState("live");
        else if (message.type === "log" && message.payload) handler.current(message.payload);
      };
      socket.onclose = () => {
        if (stopped) return;
        setState("connecting");
        timer = setTimeout(connect, RECONNECT_MS);
      };
    };
    connect();
    return () => {
      stopped = true;
      clearTimeout(timer);
      socket?.close();
    };
  }, [enabled, key]);
  return state;
}
