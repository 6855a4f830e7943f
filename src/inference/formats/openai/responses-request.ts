import { badRequest } from "../../../http/errors";
import type { ChatMessage, ChatRequest, ContentPart, ThinkingBlock, ToolChoice } from "../../canonical";
import { unsealThinking } from "./responses-reply";
import { bridgedToolsOf, calledName } from "./responses-tools";

/**
 * A Responses API request as a canonical chat request, for providers that have no Responses API
 * (Anthropic, Gemini, Bedrock, Cohere): the conversation is the `input` items, stateless.
 */

type Item = Record<string, unknown>;

const REASONING_EFFORTS = new Set(["minimal", "low", "medium", "high"]);

const textOf = (value: unknown) => (typeof value === "string" ? value : undefined);

/** A field that must be a non-empty string. */
function nameAt(item: Item, field: string, param: string): string {
  const value = item[field];
  if (typeof value !== "string" || value === "") throw badRequest(`${field} must be a non-empty string`, `${param}.${field}`);
  return value;
}

/** Settings OpenAI types strictly: a wrong type is a 400 here as it is there. */
function checkSettings(body: Item) {
  const expected: Record<string, "string" | "number"> = { instructions: "string", max_output_tokens: "number", temperature: "number", top_p: "number" };
  for (const [field, type] of Object.entries(expected)) {
    const value = body[field];
    if (value !== undefined && value !== null && typeof value !== type) throw badRequest(`${field} must be a ${type}`, field);
  }
  if (typeof body.max_output_tokens === "number" && (!Number.isInteger(body.max_output_tokens) || body.max_output_tokens < 1)) throw badRequest("max_output_tokens must be a positive integer", "max_output_tokens");
}

function itemAt(value: unknown, param: string): Item {
  if (!value || typeof value !== "object" || Array.isArray(value)) throw badRequest("must be an object", param);
  return value as Item;
}

function partOf(part: Item, param: string): ContentPart {
  switch (part.type) {
    case "input_text":
    case "output_text":
      return { type: "text", text: String(part.text ?? "") };
    case "input_image": {
      const url = textOf(part.image_url);
      if (!url) throw badRequest("an input_image needs an image_url (a URL or a data URL) when the provider has no Responses API", `${param}.image_url`);
      return { type: "image_url", image_url: { url, ...(textOf(part.detail) ? { detail: part.detail as string } : {}) } };
    }
    case "input_file":
      if (!textOf(part.file_data) && !textOf(part.file_id)) throw badRequest("an input_file needs file_data or file_id", param);
      return { type: "file", file: { file_data: textOf(part.file_data), file_id: textOf(part.file_id), filename: textOf(part.filename) } };
    default:
      throw badRequest(`content part type '${String(part.type)}' cannot be sent to a provider without a Responses API`, `${param}.type`);
  }
}

function messageOf(item: Item, param: string): ChatMessage {
  const role = item.role;
  if (role !== "user" && role !== "assistant" && role !== "system" && role !== "developer") throw badRequest(`role must be user, assistant, system or developer`, `${param}.role`);
  const content = item.content;
  if (typeof content === "string") return { role, content };
  if (!Array.isArray(content)) throw badRequest("content must be a string or an array of parts", `${param}.content`);
  const parts = content.map((part, index) => partOf(itemAt(part, `${param}.content[${index}]`), `${param}.content[${index}]`));
  // The canonical assistant message carries its text as a string.
  if (role === "assistant") return { role, content: parts.map((part) => (part.type === "text" ? part.text : "")).join("") };
  return { role, content: parts };
}

function toolOutputOf(output: unknown): string {
  if (typeof output === "string") return output;
  if (Array.isArray(output)) return output.map((part) => textOf((part as Item | null)?.text) ?? "").join("");
  return JSON.stringify(output ?? "");
}

/** A reasoning item as an assistant turn carries it: the blocks the gateway sealed, else the summary's text. */
function thoughtOf(item: Item): Pick<ChatMessage, "thinking_blocks" | "reasoning_content"> | undefined {
  const blocks = unsealThinking(item.encrypted_content);
  if (blocks) return { thinking_blocks: blocks };
  const summary = Array.isArray(item.summary) ? (item.summary as Array<{ text?: unknown }>).flatMap((part) => (typeof part.text === "string" ? [part.text] : [])).join("\n") : "";
  return summary ? { reasoning_content: summary } : undefined;
}

/** A reference the gateway could not resolve (kept-responses/operation.ts resolves those to items it keeps). */
const unknownReference = (item: Item, param: string) =>
  badRequest(
    `input item_reference '${String(item.id)}' names no item this gateway keeps for this caller (it keeps the output of the responses it answered, unless store was false, for 30 days, for the virtual key that made them); send the item itself`,
    `${param}.id`,
  );

function messagesOf(body: Item): ChatMessage[] {
  const messages: ChatMessage[] = [];
  const instructions = textOf(body.instructions);
  if (instructions) messages.push({ role: "system", content: instructions });
  const input = body.input;
  if (typeof input === "string") return [...messages, { role: "user", content: input }];
  if (!Array.isArray(input)) throw badRequest("input must be a string or an array of items", "input");
  // A reasoning item belongs to the assistant turn that follows it: its sealed thinking blocks, or
  // else its summary text (what a model that reasons in plain text, DeepSeek's, wrote).
  let thinking: Pick<ChatMessage, "thinking_blocks" | "reasoning_content"> | undefined;
  const withThinking = (message: ChatMessage): ChatMessage => {
    if (message.role !== "assistant" || !thinking) return message;
    const thought = { ...message, ...thinking };
    thinking = undefined;
    return thought;
  };
  for (const [index, raw] of input.entries()) {
    const param = `input[${index}]`;
    const item = itemAt(raw, param);
    const type = item.type ?? "message";
    if (type === "message") messages.push(withThinking(messageOf(item, param)));
    else if (type === "function_call") {
      const args = item.arguments ?? "{}";
      if (typeof args !== "string") throw badRequest("arguments must be a JSON string", `${param}.arguments`);
      const call = { id: nameAt(item, "call_id", param), type: "function" as const, function: { name: calledName(item, param), arguments: args } };
      const last = messages.at(-1);
      // Calls made in one turn arrive as separate items; the canonical turn holds them together.
      if (last?.role === "assistant" && !thinking) last.tool_calls = [...(last.tool_calls ?? []), call];
      else messages.push(withThinking({ role: "assistant", content: null, tool_calls: [call] }));
    } else if (type === "function_call_output") messages.push({ role: "tool", tool_call_id: nameAt(item, "call_id", param), content: toolOutputOf(item.output) });
    else if (type === "reasoning") thinking = thoughtOf(item) ?? thinking;
    else if (type === "item_reference") throw unknownReference(item, param);
    else throw badRequest(`input item type '${String(type)}' cannot be sent to a provider without a Responses API`, `${param}.type`);
  }
  return messages;
}

function toolChoiceOf(choice: unknown): ToolChoice | undefined {
  if (choice === "auto" || choice === "none" || choice === "required") return choice;
  const named = choice as Item | undefined;
  if (named?.type === "function" && typeof named.name === "string") return { type: "function", function: { name: calledName(named, "tool_choice") } };
  if (choice !== undefined) throw badRequest("tool_choice must be auto, none, required or a function", "tool_choice");
  return undefined;
}

function responseFormatOf(text: unknown): ChatRequest["response_format"] {
  const format = (text as { format?: Item } | undefined)?.format;
  if (!format || format.type === "text") return undefined;
  if (format.type === "json_object") return { type: "json_object" };
  if (format.type === "json_schema") {
    return { type: "json_schema", json_schema: { name: String(format.name ?? "response"), schema: format.schema as Record<string, unknown> | undefined, strict: format.strict === true } };
  }
  throw badRequest(`text.format type '${String(format.type)}' is not one of text, json_object, json_schema`, "text.format.type");
}

/** Fields naming state kept on OpenAI's side: silently dropped, the model would answer without it. */
const OPENAI_HELD = [
  ["conversation", "a conversation only OpenAI's own Responses API holds; create one the gateway keeps (POST /v1/conversations with x-gw-provider: gateway) to use it with any provider, or"],
  ["prompt", "a prompt template only OpenAI's own Responses API holds;"],
] as const;

export function chatRequestOfResponses(body: Item): ChatRequest {
  if (body.previous_response_id !== undefined && body.previous_response_id !== null) {
    throw badRequest(`previous_response_id '${String(body.previous_response_id)}' names no response this gateway keeps (kept 30 days, for the virtual key that created it); send the whole conversation in input`, "previous_response_id");
  }
  for (const [field, what] of OPENAI_HELD) {
    if (body[field] !== undefined && body[field] !== null) throw badRequest(`${field} names ${what} send the whole conversation in input`, field);
  }
  checkSettings(body);
  const effort = (body.reasoning as { effort?: unknown } | null | undefined)?.effort;
  const request: ChatRequest = {
    model: String(body.model),
    messages: messagesOf(body),
    ...bridgedToolsOf(body.tools),
    tool_choice: toolChoiceOf(body.tool_choice),
    response_format: responseFormatOf(body.text),
    ...(typeof body.max_output_tokens === "number" ? { max_tokens: body.max_output_tokens } : {}),
    ...(typeof body.temperature === "number" ? { temperature: body.temperature } : {}),
    ...(typeof body.top_p === "number" ? { top_p: body.top_p } : {}),
    ...(typeof body.parallel_tool_calls === "boolean" ? { parallel_tool_calls: body.parallel_tool_calls } : {}),
    ...(typeof body.user === "string" ? { user: body.user } : {}),
    ...(typeof effort === "string" && REASONING_EFFORTS.has(effort) ? { reasoning_effort: effort as ChatRequest["reasoning_effort"] } : {}),
    stream: body.stream === true,
  };
  for (const key of ["tools", "tool_choice", "response_format"] as const) if (request[key] === undefined) delete request[key];
  return request;
}
