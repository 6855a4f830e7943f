/** A generateContent request and the canonical chat request, both ways. */
import { badRequest } from "../../../http/errors";
import type { ChatRequest, ToolChoice, ToolDefinition } from "../../canonical";
import { contentsToMessages, messagesToContents, signsFunctionCalls } from "./contents";
import type { GenerateContentRequest, GenerationConfig, Tool, ToolConfig } from "./schemas";

type Schema = Record<string, unknown>;

/** Gemini's OpenAPI-style schema (`OBJECT`, `nullable`) as the JSON Schema other providers take. */
export function openApiToJsonSchema(schema: Schema): Schema {
  const { type, nullable, propertyOrdering: _ordering, properties, items, anyOf, ...rest } = schema;
  const converted: Schema = { ...rest };
  if (typeof type === "string") converted.type = nullable === true ? [type.toLowerCase(), "null"] : type.toLowerCase();
  if (properties && typeof properties === "object") {
    converted.properties = Object.fromEntries(Object.entries(properties as Record<string, Schema>).map(([name, property]) => [name, openApiToJsonSchema(property)]));
  }
  if (items && typeof items === "object") converted.items = openApiToJsonSchema(items as Schema);
  if (Array.isArray(anyOf)) converted.anyOf = (anyOf as Schema[]).map(openApiToJsonSchema);
  return converted;
}

function toolsToCanonical(tools: Tool[] | undefined): ToolDefinition[] | undefined {
  if (!tools) return undefined;
  return tools.flatMap((tool, index) => {
    if (!tool.functionDeclarations) throw badRequest(`tools[${index}] is not a function tool; only functionDeclarations can be sent to a provider of another format`, `tools[${index}]`);
    return tool.functionDeclarations.map((declaration) => ({
      type: "function" as const,
      function: {
        name: declaration.name,
        ...(declaration.description === undefined ? {} : { description: declaration.description }),
        parameters: declaration.parametersJsonSchema ?? (declaration.parameters ? openApiToJsonSchema(declaration.parameters) : { type: "object", properties: {} }),
      },
    }));
  });
}

function toolChoiceToCanonical(config: ToolConfig | undefined): ToolChoice | undefined {
  const calling = config?.functionCallingConfig;
  switch (calling?.mode) {
    case "NONE":
      return "none";
    case "ANY":
      return calling.allowedFunctionNames?.length === 1 ? { type: "function", function: { name: calling.allowedFunctionNames[0]! } } : "required";
    case "AUTO":
    case "VALIDATED":
      return "auto";
    default:
      return undefined;
  }
}

const EFFORT_BUDGET = { minimal: 128, low: 1024, medium: 8192, high: 24576 } as const;
type Effort = keyof typeof EFFORT_BUDGET;

function thinkingToCanonical(config: GenerationConfig["thinkingConfig"]): Pick<ChatRequest, "thinking" | "reasoning_effort"> {
  const level = config?.thinkingLevel?.toLowerCase();
  if (level && level in EFFORT_BUDGET) return { reasoning_effort: level as Effort };
  const budget = config?.thinkingBudget;
  if (budget === 0) return { thinking: { type: "disabled" } };
  if (budget !== undefined && budget > 0) return { thinking: { type: "enabled", budget_tokens: budget } };
  return {};
}

function responseFormatToCanonical(config: GenerationConfig): ChatRequest["response_format"] {
  if (config.responseMimeType !== "application/json") return undefined;
  const schema = config.responseJsonSchema ?? (config.responseSchema ? openApiToJsonSchema(config.responseSchema) : undefined);
  return schema ? { type: "json_schema", json_schema: { name: "response", schema } } : { type: "json_object" };
}

const defined = <T extends Record<string, unknown>>(object: T) => Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as Partial<T>;

export function generateContentToCanonical(body: Record<string, unknown>): ChatRequest {
  const request = body as GenerateContentRequest;
  const config = request.generationConfig ?? {};
  return {
    model: typeof body.model === "string" ? body.model.replace(/^models\//, "") : "",
    messages: contentsToMessages(request.contents, request.systemInstruction),
    ...defined({
      tools: toolsToCanonical(request.tools),
      tool_choice: toolChoiceToCanonical(request.toolConfig),
      temperature: config.temperature,
      top_p: config.topP,
      top_k: config.topK,
      max_tokens: config.maxOutputTokens,
      stop: config.stopSequences,
      n: config.candidateCount,
      seed: config.seed,
      response_format: responseFormatToCanonical(config),
    }),
    ...thinkingToCanonical(config.thinkingConfig),
  };
}

function toolConfigOf(choice: ToolChoice | undefined): ToolConfig | undefined {
  if (choice === undefined) return undefined;
  if (typeof choice === "object") return { functionCallingConfig: { mode: "ANY", allowedFunctionNames: [choice.function.name] } };
  return { functionCallingConfig: { mode: choice === "required" ? "ANY" : choice === "none" ? "NONE" : "AUTO" } };
}

function thinkingConfigOf(request: ChatRequest): GenerationConfig["thinkingConfig"] {
  if (request.thinking?.type === "disabled") return { thinkingBudget: 0 };
  if (request.thinking?.type === "enabled") return { thinkingBudget: request.thinking.budget_tokens, includeThoughts: true };
  if (request.reasoning_effort) return { thinkingBudget: EFFORT_BUDGET[request.reasoning_effort], includeThoughts: true };
  return undefined;
}

/** A response schema without `$schema`, which Gemini's `responseJsonSchema` refuses; it takes the rest of JSON Schema's keywords. */
function withoutDialect(schema: Schema): Schema {
  const { $schema: _, ...rest } = schema;
  return rest;
}

function generationConfigOf(request: ChatRequest): GenerationConfig {
  const format = request.response_format;
  return defined({
    temperature: request.temperature,
    topP: request.top_p,
    topK: request.top_k,
    maxOutputTokens: request.max_completion_tokens ?? request.max_tokens,
    stopSequences: request.stop === undefined ? undefined : [request.stop].flat(),
    candidateCount: request.n,
    seed: request.seed,
    responseMimeType: format && format.type !== "text" ? "application/json" : undefined,
    responseJsonSchema: format?.type === "json_schema" && format.json_schema.schema ? withoutDialect(format.json_schema.schema) : undefined,
    thinkingConfig: thinkingConfigOf(request),
  });
}

/** Function declarations, and Google Search grounding for a client's hosted web search. */
function toolsOf(request: ChatRequest): Array<Record<string, unknown>> | undefined {
  // JSON Schema goes in `parametersJsonSchema`: Gemini's `parameters` takes only its OpenAPI subset.
  const functions = request.tools?.length ? [{ functionDeclarations: request.tools.map(({ function: fn }) => defined({ name: fn.name, description: fn.description, parametersJsonSchema: fn.parameters })) }] : [];
  const search = request.hosted_tools?.length ? [{ googleSearch: {} }] : [];
  const tools = [...functions, ...search];
  return tools.length > 0 ? tools : undefined;
}

export function canonicalToGenerateContent(request: ChatRequest): Record<string, unknown> {
  const generationConfig = generationConfigOf(request);
  return {
    ...messagesToContents(request.messages, signsFunctionCalls(request.model)),
    ...defined({
      tools: toolsOf(request),
      toolConfig: toolConfigOf(request.tool_choice),
      generationConfig: Object.keys(generationConfig).length > 0 ? generationConfig : undefined,
    }),
  };
}
