import { type RegisteredClient, toolsOf } from "./registry";

/** Why a client exposes none of its tools, and how to change that; undefined while it exposes some (or has none). */
export function noToolsSelected(entry: RegisteredClient): string | undefined {
  if (entry.config.toolsToExecute.length > 0) return undefined;
  const count = toolsOf(entry).length;
  const offered = count > 0 ? `its ${count} tool${count === 1 ? "" : "s"} are` : "its tools will be";
  return `MCP client '${entry.config.name}' has no tools selected, so ${offered} hidden: set tools_to_execute to ["*"] or to tool names (PUT /api/mcp/client/${entry.config.id})`;
}

/** The notices of every client in view that hides its tools, in one sentence per client. */
export function toolsNotSelectedNotice(entries: RegisteredClient[]): string | undefined {
  const notices = entries.flatMap((entry) => noToolsSelected(entry) ?? []);
  return notices.length > 0 ? notices.join(" ") : undefined;
}
