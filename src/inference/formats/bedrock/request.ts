import type { ChatRequest, ToolChoice, ToolDefinition } from "../../canonical";
import { messagesToConverse, messageToCanonical, systemToCanonical } from "./messages";
import type { ConverseRequest } from "./wire";

type ToolConfig = NonNullable<ConverseRequest["toolConfig"]>;
type BedrockToolChoice = NonNullable<ToolConfig["toolChoice"]>;

function toolsToCanonical(tools: ToolConfig["tools"]): ToolDefinition[] {
  const definitions: ToolDefinition[] = [];
  for (const tool of tools) {
    if (tool.cachePoint && definitions.length > 0) definitions[definitions.length - 1]!.cache_control = { type: "ephemeral" };
    if (!tool.toolSpec) continue;
    const { name, description, inputSchema } = tool.toolSpec;
    definitions.push({ type: "function", function: { name, ...(description === undefined ? {} : { description }), parameters: inputSchema.json } });
  }
  return definitions;
}

function toolChoiceToCanonical(choice: BedrockToolChoice | undefined): ToolChoice | undefined {
  if (choice?.tool) return { type: "function", function: { name: choice.tool.name } };
  if (choice?.any) return "required";
  return choice?.auto ? "auto" : undefined;
}

/** Anthropic-on-Bedrock fields the canonical request has names for. */
function additionalFieldsToCanonical(fields: Record<string, unknown> | undefined): Partial<ChatRequest> {
  if (!fields) return {};
  const request: Partial<ChatRequest> = {};
  if (typeof fields.top_k === "number") request.top_k = fields.top_k;
  if (fields.thinking && typeof fields.thinking === "object") request.thinking = fields.thinking as ChatRequest["thinking"];
  return request;
}

/** A Converse body as a canonical request. The model lives in Bedrock's path, not its body, so the target fills it in. */
export function converseToCanonical(body: ConverseRequest): ChatRequest {
  const request: ChatRequest = { model: "", messages: [...systemToCanonical(body.system), ...body.messages.flatMap(messageToCanonical)] };
  const config = body.inferenceConfig;
  if (config?.maxTokens !== undefined) request.max_tokens = config.maxTokens;
  if (config?.temperature !== undefined) request.temperature = config.temperature;
  if (config?.topP !== undefined) request.top_p = config.topP;
  if (config?.stopSequences?.length) request.stop = config.stopSequences;
  if (body.toolConfig) {
    request.tools = toolsToCanonical(body.toolConfig.tools);
    const choice = toolChoiceToCanonical(body.toolConfig.toolChoice);
    if (choice) request.tool_choice = choice;
  }
  return { ...request, ...additionalFieldsToCanonical(body.additionalModelRequestFields) };
}

/** Bedrock has no "none": the tools stay declared (history may use them) and the choice is left to the model. */
function toolChoiceToBedrock(choice: ToolChoice | undefined): BedrockToolChoice | undefined {
  if (choice === "required") return { any: {} };
  if (choice === "auto") return { auto: {} };
  return typeof choice === "object" ? { tool: { name: choice.function.name } } : undefined;
}

function toolConfigOf(request: ChatRequest): ToolConfig | undefined {
  if (!request.tools?.length) return undefined;
  const tools = request.tools.flatMap((tool): ToolConfig["tools"] => [
    { toolSpec: { name: tool.function.name, ...(tool.function.description ? { description: tool.function.description } : {}), inputSchema: { json: tool.function.parameters ?? { type: "object", properties: {} } } } },
    ...(tool.cache_control ? [{ cachePoint: { type: "default" as const } }] : []),
  ]);
  const toolChoice = toolChoiceToBedrock(request.tool_choice);
  return toolChoice ? { tools, toolChoice } : { tools };
}

function inferenceConfigOf(request: ChatRequest): ConverseRequest["inferenceConfig"] {
  const maxTokens = request.max_tokens ?? request.max_completion_tokens;
  const stop = typeof request.stop === "string" ? [request.stop] : request.stop;
  const config = { maxTokens, temperature: request.temperature, topP: request.top_p, stopSequences: stop?.length ? stop : undefined };
  const set = Object.entries(config).filter(([, value]) => value !== undefined);
  return set.length > 0 ? Object.fromEntries(set) : undefined;
}

export function canonicalToConverse(request: ChatRequest): ConverseRequest {
  const { system, messages } = messagesToConverse(request.messages);
  const body: ConverseRequest = { messages };
  if (system.length > 0) body.system = system;
  const inferenceConfig = inferenceConfigOf(request);
  if (inferenceConfig) body.inferenceConfig = inferenceConfig;
  const toolConfig = toolConfigOf(request);
  if (toolConfig) body.toolConfig = toolConfig;
  const additional = { ...(request.top_k === undefined ? {} : { top_k: request.top_k }), ...(request.thinking ? { thinking: request.thinking } : {}) };
  if (Object.keys(additional).length > 0) body.additionalModelRequestFields = additional;
  return body;
}
