import type { WireFormat } from "../../upstream/operations";
import type { OfferedTool } from "../tools/catalogue";

type ToolDefinition = Record<string, unknown>;

/** A tool as a request declares it to the model: its name there and its MCP definition. */
export type DeclaredTool = Pick<OfferedTool, "exposedName" | "definition">;

/** How each chat format declares a function tool, and reads a declared tool's name. */
const TOOL_SHAPES: Partial<Record<WireFormat, { define(tool: DeclaredTool): ToolDefinition; nameOf(tool: unknown): unknown }>> = {
  openai: {
    define: (tool) => ({
      type: "function",
      function: { name: tool.exposedName, description: tool.definition?.description ?? "", parameters: { type: "object", ...tool.definition?.inputSchema } },
    }),
    nameOf: (tool) => (tool as { function?: { name?: unknown } } | null)?.function?.name,
  },
  anthropic: {
    define: (tool) => ({ name: tool.exposedName, description: tool.definition?.description ?? "", input_schema: { type: "object", ...tool.definition?.inputSchema } }),
    nameOf: (tool) => (tool as { name?: unknown } | null)?.name,
  },
};

export const injectsInto = (format: WireFormat) => format in TOOL_SHAPES;

/** The names of the tools a body declares itself, in the format's shape. */
export function declaredToolNames(body: Record<string, unknown>, format: WireFormat): unknown[] {
  const shape = TOOL_SHAPES[format];
  return shape && Array.isArray(body.tools) ? (body.tools as unknown[]).map(shape.nameOf) : [];
}

/** The body with the offered tools appended to its own; a tool the client already declared by that name is left as it is. */
export function withInjectedTools(body: Record<string, unknown>, format: WireFormat, offered: readonly DeclaredTool[]): Record<string, unknown> {
  const shape = TOOL_SHAPES[format];
  if (!shape || offered.length === 0) return body;
  const own = Array.isArray(body.tools) ? (body.tools as unknown[]) : [];
  const declared = new Set(declaredToolNames(body, format));
  const added = offered.filter((tool) => !declared.has(tool.exposedName)).map(shape.define);
  return added.length === 0 ? body : { ...body, tools: [...own, ...added] };
}
