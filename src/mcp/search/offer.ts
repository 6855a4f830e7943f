import type { DeclaredTool } from "../chat/tool-injection";
import type { CallResult } from "../tools/call-result";
import type { AnsweredHere } from "../tools/executor";
import type { SearchableTool } from "./tool-index";
import type { ToolSearchOptions } from "./options";

export const SEARCH_TOOL_NAME = "search_tools";

const SEARCH_TOOL: DeclaredTool = {
  exposedName: SEARCH_TOOL_NAME,
  definition: {
    name: SEARCH_TOOL_NAME,
    description:
      "Finds the tools that fit a task among many more than are listed here. Describe what you want to do; the answer lists the best-matching tools with their input schemas, and they can be called from your next turn on.",
    inputSchema: { type: "object", properties: { query: { type: "string", description: "What the tool should do, in a few words (e.g. 'create an invoice for a customer')." } }, required: ["query"] },
  },
};

/**
 * What a caller with tool search declares instead of every tool: `search_tools`, the pinned
 * tools, and the tools already found (`loaded`), in the catalogue's order.
 */
export function offerToolSearch<T extends DeclaredTool>(tools: readonly T[], options: ToolSearchOptions, loaded: ReadonlySet<string> = new Set()): Array<T | DeclaredTool> {
  const pinned = new Set(options.pinned);
  return [SEARCH_TOOL, ...tools.filter((tool) => pinned.has(tool.exposedName) || loaded.has(tool.exposedName))];
}

/** What a `search_tools` call answers: the tools found, with their input schemas, as JSON text. */
function foundToolsResult(tools: readonly SearchableTool[]): CallResult {
  const found = tools.map((tool) => ({ name: tool.name, description: tool.description ?? "", input_schema: { type: "object", ...tool.inputSchema } }));
  return { content: [{ type: "text", text: JSON.stringify({ tools: found }) }] };
}

const MISSING_QUERY = "search_tools needs a query: a non-empty string saying what the tool should do";

/** The query of a `search_tools` call's arguments, when it has one. */
export function searchQuery(args: Record<string, unknown> | undefined): string | undefined {
  const query = args?.query;
  return typeof query === "string" && query.trim() !== "" ? query : undefined;
}

/** A search's answer, and what the MCP log keeps of it: how many tools it found, and their names. */
export const searchAnswer = (tools: readonly SearchableTool[]): AnsweredHere => ({
  result: foundToolsResult(tools),
  logged: JSON.stringify({ found: tools.length, tools: tools.map((tool) => tool.name) }),
});

/** A search without a query: a tool error the model can read. */
export const missingQueryAnswer = (): AnsweredHere => ({ result: { isError: true, content: [{ type: "text", text: MISSING_QUERY }] }, logged: MISSING_QUERY });
