import type { ChatRequest, HostedTool } from "./canonical";
import type { WireFormat } from "../upstream/operations";

/** A tool of the client's request that the provider was not given, and why. */
export interface DroppedTool {
  tool: string;
  reason: string;
}

/** Gemini 3 and later take Google Search beside function tools; earlier models refuse the pair. */
const searchesBesideFunctions = (model: string) => Number(/gemini-(\d+)/.exec(model)?.[1] ?? 0) >= 3;

/** Why `format` cannot run a web search for `request`; undefined where it writes its own. */
function webSearchRefusal(format: WireFormat, request: ChatRequest): string | undefined {
  if (format === "anthropic") return undefined;
  if (format === "genai") return request.tools?.length && !searchesBesideFunctions(request.model) ? "Gemini models before Gemini 3 take Google Search grounding only without function tools" : undefined;
  return `the ${format} format has no web search the gateway can ask for`;
}

/**
 * The request with the hosted tools the target's format runs as its own (Anthropic's server-side
 * web search, Gemini's Google Search grounding), and those it cannot run left out: the model then
 * answers without them, which the client is told (`x-gw-dropped-tools`) rather than refused.
 */
export function withHostedTools(request: ChatRequest, format: WireFormat): { request: ChatRequest; dropped?: DroppedTool[] } {
  if (!request.hosted_tools) return { request };
  const kept: HostedTool[] = [];
  const dropped: DroppedTool[] = [];
  for (const tool of request.hosted_tools) {
    const refusal = webSearchRefusal(format, request);
    if (refusal) dropped.push({ tool: tool.type, reason: refusal });
    else kept.push(tool);
  }
  const { hosted_tools: _, ...rest } = request;
  return { request: kept.length > 0 ? { ...rest, hosted_tools: kept } : rest, ...(dropped.length > 0 ? { dropped } : {}) };
}

/** The `x-gw-dropped-tools` header's value: each tool with why, `; `-separated. */
export const droppedToolsHeader = (dropped: readonly DroppedTool[]) => dropped.map(({ tool, reason }) => `${tool} (${reason})`).join("; ");
