import type { CallResult } from "../tools/call-result";
import type { OfferedTool } from "../tools/catalogue";
import type { ToolCall, ToolExecutor } from "../tools/executor";
import { withInjectedTools } from "../chat/tool-injection";
import { foundToolsResult, MISSING_QUERY, offerToolSearch, SEARCH_TOOL_NAME } from "./offer";
import type { ToolSearchOptions } from "./options";
import type { ToolIndex } from "./tool-index";

type Executes = Pick<ToolExecutor, "execute">;

interface HistoryMessage {
  role?: unknown;
  tool_calls?: Array<{ function?: { name?: unknown } }>;
}

/** The tools the conversation's assistant turns called already: a client sending the next turn keeps them offered. */
function calledBefore(messages: unknown, offered: readonly OfferedTool[]): Set<string> {
  const names = new Set(offered.map((tool) => tool.exposedName));
  const called = (Array.isArray(messages) ? (messages as HistoryMessage[]) : []).flatMap((message) => (message?.role === "assistant" && Array.isArray(message.tool_calls) ? message.tool_calls : []));
  return new Set(called.map((call) => call?.function?.name).filter((name): name is string => typeof name === "string" && names.has(name)));
}

const failed = (text: string): CallResult => ({ isError: true, content: [{ type: "text", text }] });

function queryOf(call: ToolCall): string | undefined {
  try {
    const query = (JSON.parse(call.function.arguments || "{}") as { query?: unknown }).query;
    return typeof query === "string" && query.trim() !== "" ? query : undefined;
  } catch {
    return undefined;
  }
}

const declaresSearchTool = (tools: unknown) => Array.isArray(tools) && tools.some((tool) => (tool as { function?: { name?: unknown } } | null)?.function?.name === SEARCH_TOOL_NAME);

/**
 * The request's tool search; none when the client declares a tool named `search_tools` itself:
 * its calls are the client's, and the request gets every MCP tool as without search.
 */
export function chatToolSearch(index: () => ToolIndex, offered: readonly OfferedTool[], options: ToolSearchOptions, body: Record<string, unknown>): ChatToolSearch | undefined {
  return declaresSearchTool(body.tools) ? undefined : new ChatToolSearch(index(), offered, options, body);
}

/**
 * Tool search in one chat request (OpenAI format): which tools each round declares, the answers
 * to the model's `search_tools` calls, and the tools those found, declared from the next round on.
 */
export class ChatToolSearch {
  private readonly loaded: Set<string>;
  private readonly permitted: Set<string>;
  private readonly ownTools: unknown;

  constructor(
    private readonly index: ToolIndex,
    private readonly offered: readonly OfferedTool[],
    private readonly options: ToolSearchOptions,
    body: Record<string, unknown>,
  ) {
    this.loaded = calledBefore(body.messages, offered);
    this.permitted = new Set(offered.map((tool) => tool.exposedName));
    this.ownTools = body.tools;
  }

  /** The body with the client's own tools, then search_tools, the pinned tools and those found so far. */
  declare(body: Record<string, unknown>): Record<string, unknown> {
    return withInjectedTools({ ...body, tools: this.ownTools }, "openai", offerToolSearch(this.offered, this.options, this.loaded));
  }

  answers(name: string): boolean {
    return name === SEARCH_TOOL_NAME;
  }

  /** The executor, with `search_tools` answered here. */
  executor(inner: Executes): Executes {
    return { execute: (call, context) => (this.answers(call.function.name) ? this.search(call) : inner.execute(call, context)) };
  }

  private async search(call: ToolCall): Promise<CallResult> {
    const query = queryOf(call);
    if (!query) return failed(MISSING_QUERY);
    const { tools } = await this.index.search(query, this.options.maxResults, (tool) => this.permitted.has(tool.name));
    for (const tool of tools) this.loaded.add(tool.name);
    return foundToolsResult(tools);
  }
}
