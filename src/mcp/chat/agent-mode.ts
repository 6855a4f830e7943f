import { GatewayError } from "../../http/errors";
import { type CallResult, resultText } from "../tools/call-result";
import { autoExecutes, type OfferedTool } from "../tools/catalogue";
import type { CallContext, ToolCall, ToolExecutor } from "../tools/executor";

interface AssistantMessage {
  role: "assistant";
  content?: unknown;
  tool_calls?: ToolCall[];
}

interface Completion {
  choices?: Array<{ message?: AssistantMessage; finish_reason?: string }>;
}

/** Tools the gateway answers itself (`search_tools`), whoever may run the others. */
export interface OwnTools {
  answers(name: string): boolean;
}

/** Every call is an MCP tool agent mode may run by itself, or one the gateway answers itself. */
export const allRunHere = (calls: readonly ToolCall[], offered: readonly OfferedTool[], own?: OwnTools) =>
  calls.length > 0 && calls.every((call) => own?.answers(call.function?.name ?? "") || offered.some((tool) => tool.exposedName === call.function?.name && autoExecutes(tool)));

/** The reply's tool calls when every one of them is an MCP tool agent mode may run by itself, or one the gateway answers itself (`search_tools`). */
export function autoExecutableCalls(completion: Completion, offered: readonly OfferedTool[], own?: OwnTools): { message: AssistantMessage; calls: ToolCall[] } | undefined {
  const [choice, ...others] = completion.choices ?? [];
  const message = choice?.message;
  const calls = message?.tool_calls ?? [];
  if (others.length > 0 || !message) return undefined;
  return allRunHere(calls, offered, own) ? { message, calls } : undefined;
}

/** Errors the caller must act on (values to submit, an identity to send) end the loop; other failures are told to the model. */
const mustReachCaller = (error: unknown) => error instanceof GatewayError && (error.errorType === "caller_mcp_auth_required" || error.errorType === "caller_mcp_identity_required");

interface ImagePart {
  type: "image";
  data: string;
  mimeType: string;
}

export const isImage = (part: unknown): part is ImagePart => {
  const candidate = part as Partial<ImagePart>;
  return candidate.type === "image" && typeof candidate.data === "string" && typeof candidate.mimeType === "string";
};

export const imagesOf = (result: CallResult): ImagePart[] => (result.toolResult === undefined ? (result.content ?? []).filter(isImage) : []);

/**
 * A tool message carries text only (OpenAI's rule, which every format can follow), so a tool's
 * images are named in it and sent in a user message after the round's tool messages: the model
 * sees the picture rather than megabytes of its base64 as text.
 */
function toolMessageText(result: CallResult): string {
  return resultText(result, (part) => (isImage(part) ? `[${part.mimeType} image: attached in the next message]` : JSON.stringify(part)));
}

function attachedImages(rounds: ReadonlyArray<{ call: ToolCall; images: ImagePart[] }>) {
  const content = rounds.flatMap(({ call, images }) => [
    { type: "text", text: `Images returned by ${call.function.name} (${call.id}):` },
    ...images.map((image) => ({ type: "image_url", image_url: { url: `data:${image.mimeType};base64,${image.data}` } })),
  ]);
  return content.length > 0 ? [{ role: "user", content }] : [];
}

/** One call and what it gave. */
export interface AnsweredCall {
  call: ToolCall;
  result: CallResult;
}

/** Runs one round of tool calls in parallel; a failure the model can act on is its call's result, as text. */
export async function answerCalls(executor: Pick<ToolExecutor, "execute">, calls: readonly ToolCall[], context: CallContext): Promise<AnsweredCall[]> {
  return Promise.all(
    calls.map(async (call) => {
      try {
        return { call, result: await executor.execute(call, context) };
      } catch (error) {
        if (mustReachCaller(error) || !(error instanceof GatewayError)) throw error;
        return { call, result: { isError: true, content: [{ type: "text", text: `error: ${error.message}` }] } };
      }
    }),
  );
}

/** A round's answers as the messages to feed back: one tool message per call, then the images they returned. */
export function toolMessages(answered: readonly AnsweredCall[]) {
  const messages = answered.map(({ call, result }) => ({ call, message: { role: "tool", tool_call_id: call.id, content: toolMessageText(result) }, images: imagesOf(result) }));
  return [...messages.map(({ message }) => message), ...attachedImages(messages.filter(({ images }) => images.length > 0))];
}

/** The request of the next round: the conversation so far, then the round's assistant turn and its tool messages. */
export const nextRoundBody = (body: Record<string, unknown>, message: AssistantMessage, results: readonly unknown[]): Record<string, unknown> => ({
  ...body,
  messages: [...(body.messages as unknown[]), message, ...results],
});

export const parseCompletion = (text: string): Completion | undefined => {
  try {
    return JSON.parse(text) as Completion;
  } catch {
    return undefined;
  }
};
