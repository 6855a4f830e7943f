import { Value } from "@sinclair/typebox/value";
import { holds, type Principal } from "../../access/principal";
import type { ToolDefinition } from "../../inference/canonical";
import { GatewayError } from "../../http/errors";
import { violationSentence } from "../../http/validation-sentence";
import type { ToolContext, WarpTool } from "./tool";

/** Characters of one tool result the model is given at most. */
export const MAX_RESULT_CHARS = 16_000;

export type ToolOutcome =
  | { ok: true; result: unknown; truncated: boolean; output: string }
  | { ok: false; error: string; output: string };

/** The JSON schema of a TypeBox schema: its plain fields, without TypeBox's symbol keys. */
const jsonSchemaOf = (schema: unknown) => JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;

function parseArguments(text: string): unknown {
  if (!text.trim()) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new GatewayError({ status: 400, errorType: "caller_invalid_tool_arguments", message: "the arguments are not valid JSON" });
  }
}

function checkedArguments(tool: WarpTool, text: string): unknown {
  const args = parseArguments(text);
  const error = Value.Errors(tool.parameters, args).First();
  if (error) throw new GatewayError({ status: 400, errorType: "caller_invalid_tool_arguments", message: `argument '${error.path.slice(1) || "(root)"}' ${violationSentence(error)}`, param: error.path.slice(1) });
  return args;
}

function capped(result: unknown): ToolOutcome {
  const text = JSON.stringify(result) ?? "null";
  if (text.length <= MAX_RESULT_CHARS) return { ok: true, result, truncated: false, output: text };
  const output = `${text.slice(0, MAX_RESULT_CHARS)}… [result cut at ${MAX_RESULT_CHARS} of ${text.length} characters: narrow the filters or lower the limit]`;
  return { ok: true, result: output, truncated: true, output };
}

/** The tools one caller may use: each needs the permission over the telemetry it reads. */
export class ToolSet {
  private readonly byName: Map<string, WarpTool>;

  constructor(tools: readonly WarpTool[]) {
    this.byName = new Map(tools.map((tool) => [tool.name, tool]));
  }

  static for(principal: Principal, tools: readonly WarpTool[]): ToolSet {
    return new ToolSet(tools.filter((tool) => holds(principal, tool.permission)));
  }

  get size(): number {
    return this.byName.size;
  }

  /** The tools as OpenAI-format function definitions. */
  definitions(): ToolDefinition[] {
    return [...this.byName.values()].map((tool) => ({ type: "function", function: { name: tool.name, description: tool.description, parameters: jsonSchemaOf(tool.parameters) } }));
  }

  /** Runs one call; a failure is an outcome the model is told about, never an exception. */
  async run(name: string, argumentsText: string, context: ToolContext): Promise<ToolOutcome> {
    const tool = this.byName.get(name);
    if (!tool) return { ok: false, error: `there is no tool '${name}'`, output: `error: there is no tool '${name}'` };
    try {
      return capped(await tool.run(checkedArguments(tool, argumentsText), context));
    } catch (error) {
      if (!(error instanceof GatewayError)) console.error(`warp: tool '${name}' failed`, error);
      const message = error instanceof GatewayError ? error.message : "the tool failed with an internal error";
      return { ok: false, error: message, output: `error: ${message}` };
    }
  }
}
