import type { McpLogWriter, ToolCallEnd, ToolCallStart } from "./writer";

/** What the tool executor logs each call through. */
export type ToolCallLog = Pick<McpLogWriter, "start" | "finish">;

/** Told of every tool call once it ended: what was called, how it ended, and when it started (epoch ms). */
export type ToolCallObserver = (call: ToolCallStart, end: ToolCallEnd, startedAt: number) => void;

/** The log, also telling `observer` of each call as it ends (a tracer); an observer that throws costs the call nothing. */
export function observedToolCalls(log: ToolCallLog, observer: ToolCallObserver): ToolCallLog {
  const started = new Map<string, { call: ToolCallStart; at: number }>();
  return {
    async start(call) {
      const at = Date.now();
      const id = await log.start(call);
      started.set(id, { call, at });
      return id;
    },
    async finish(id, end) {
      const begun = started.get(id);
      started.delete(id);
      await log.finish(id, end);
      try {
        if (begun) observer(begun.call, end, begun.at);
      } catch (error) {
        console.error("MCP: a tool call observer failed", error);
      }
    },
  };
}
