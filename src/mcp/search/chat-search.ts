import type { WireFormat } from "../../upstream/operations";
import type { CallResult } from "../tools/call-result";
import type { OfferedTool } from "../tools/catalogue";
import type { CallContext, ToolCall, ToolExecutor } from "../tools/executor";
import { declaredToolNames, withInjectedTools } from "../chat/tool-injection";
import { missingQueryAnswer, offerToolSearch, SEARCH_TOOL_NAME, searchAnswer, searchQuery } from "./offer";
import type { ToolSearchOptions } from "./options";
import type { ToolIndex } from "./tool-index";

type Executes = Pick<ToolExecutor, "execute" | "answerHere">;

interface HistoryMessage {
  role?: unknown;
  /** OpenAI's assistant turn. */
  tool_calls?: Array<{ function?: { name?: unknown } }>;
  /** Anthropic's: `tool_use` blocks among the content. */
  content?: unknown;
}

/** The names of the tools an assistant turn called, in either format. */
function calledIn(message: HistoryMessage): unknown[] {
  if (Array.isArray(message.tool_calls)) return message.tool_calls.map((call) => call?.function?.name);
  if (!Array.isArray(message.content)) return [];
  return (message.content as Array<{ type?: unknown; name?: unknown } | null>).filter((block) => block?.type === "tool_use").map((block) => block!.name);
}

/** The tools the conversation's assistant turns called already: a client sending the next turn keeps them offered. */
function calledBefore(messages: unknown, offered: readonly OfferedTool[]): Set<string> {
  const names = new Set(offered.map((tool) => tool.exposedName));
  const called = (Array.isArray(messages) ? (messages as Array<HistoryMessage | null>) : []).flatMap((message) => (message?.role === "assistant" ? calledIn(message) : []));
  return new Set(called.filter((name): name is string => typeof name === "string" && names.has(name)));
}

function argumentsOf(call: ToolCall): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(call.function.arguments || "{}");
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * The request's tool search; none when the client declares a tool named `search_tools` itself:
 * its calls are the client's, and the request gets every MCP tool as without search.
 */
export function chatToolSearch(index: () => ToolIndex, offered: readonly OfferedTool[], options: ToolSearchOptions, body: Record<string, unknown>, format: WireFormat): ChatToolSearch | undefined {
  return declaredToolNames(body, format).includes(SEARCH_TOOL_NAME) ? undefined : new ChatToolSearch(index(), offered, options, body, format);
}

/**
 * Tool search in one chat request (OpenAI or Anthropic format): which tools each round declares,
 * the answers to the model's `search_tools` calls (each logged as a tool call), and the tools
 * those found, declared from the next round on.
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
    private readonly format: WireFormat,
  ) {
    this.loaded = calledBefore(body.messages, offered);
    this.permitted = new Set(offered.map((tool) => tool.exposedName));
    this.ownTools = body.tools;
  }

  /** The body with the client's own tools, then search_tools, the pinned tools and those found so far. */
  declare(body: Record<string, unknown>): Record<string, unknown> {
    return withInjectedTools({ ...body, tools: this.ownTools }, this.format, offerToolSearch(this.offered, this.options, this.loaded));
  }

  answers(name: string): boolean {
    return name === SEARCH_TOOL_NAME;
  }

  /** The executor, with `search_tools` answered (and logged) here. */
  executor(inner: Executes): Pick<ToolExecutor, "execute"> {
    return {
      execute: (call, context) => (this.answers(call.function.name) ? this.search(inner, call, context) : inner.execute(call, context)),
    };
  }

  private search(inner: Executes, call: ToolCall, context: CallContext): Promise<CallResult> {
    const args = argumentsOf(call);
    return inner.answerHere(SEARCH_TOOL_NAME, args, context, async () => {
      const query = searchQuery(args);
      if (!query) return missingQueryAnswer();
      const { tools } = await this.index.search(query, this.options.maxResults, (tool) => this.permitted.has(tool.name));
      for (const tool of tools) this.loaded.add(tool.name);
      return searchAnswer(tools);
    });
  }
}
