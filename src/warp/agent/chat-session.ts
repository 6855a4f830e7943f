import { type Static, Type as t } from "@sinclair/typebox";
import type { Principal } from "../../access/principal";
import { badRequest, GatewayError } from "../../http/errors";
import type { Inference } from "../../inference/handle";
import type { WarpConfigStore } from "../config/store";
import { isConfigured } from "../config/resolve";
import type { WarpConversationRow } from "../../db/schema/warp";
import { keptSince, ownerOf } from "../conversations/ownership";
import type { ConversationStore } from "../conversations/store";
import { notConfigured } from "../errors";
import { ToolSet } from "../tools/toolset";
import type { WarpTool } from "../tools/tool";
import { type AgentRun, runAgent } from "./chat-loop";
import { type EmitChatEvent, encodeChatEvent } from "./events";
import { chooseModel } from "./model-choice";

/** The body of POST /api/warp/chat. */
export const ChatInput = t.Object({
  message: t.String({ minLength: 1, description: "the question" }),
  conversation_id: t.Optional(t.String({ description: "continue this saved chat; omit to start one" })),
  provider: t.Optional(t.String({ description: "with model: the default model or one of additional_models; omit both for the default" })),
  model: t.Optional(t.String()),
});
export type ChatInput = Static<typeof ChatInput>;

export interface ChatDeps {
  inference: () => Inference;
  config: WarpConfigStore;
  conversations: ConversationStore;
  tools: readonly WarpTool[];
  clock: () => Date;
}

const internalError = () => new GatewayError({ status: 500, errorType: "gateway_internal_error", message: "internal server error" });

function errorBody(error: unknown) {
  if (error instanceof GatewayError) return error.toBody();
  console.error("warp: chat failed", error);
  return internalError().toBody();
}

/** Runs the turn, saves it when it succeeded, and ends the stream with `error` (if any) and `done`. */
async function answerTurn(deps: ChatDeps, run: AgentRun, conversation: WarpConversationRow, emit: EmitChatEvent): Promise<void> {
  const result = await runAgent(run, emit);
  let failure = result.error;
  if (failure === undefined) await deps.conversations.appendTurn(conversation, result.messages, deps.clock()).catch((error: unknown) => (failure = error));
  if (failure !== undefined) emit("error", errorBody(failure));
  emit("done", { conversation_id: conversation.id, finish_reason: failure === undefined ? result.finishReason : "error", iterations: result.iterations, usage: result.usage });
}

/**
 * POST /api/warp/chat: checks what can be checked before streaming (configured, the model,
 * the conversation), then answers with server-sent events: `start`, the model's `delta`s and
 * each tool call's `tool_call_start`/`tool_call_end`, an `error` if the turn failed, and `done`
 * last. A turn that succeeded is saved to the conversation; a failed one is not.
 */
export async function startChat(deps: ChatDeps, input: ChatInput, principal: Principal, clientSignal: AbortSignal): Promise<Response> {
  if (!input.message.trim()) throw badRequest("message must not be blank", "message");
  const config = await deps.config.read();
  if (!isConfigured(config)) throw notConfigured();
  const model = chooseModel(config, input);
  const owner = ownerOf(principal);
  const now = deps.clock();
  const conversation = input.conversation_id
    ? await deps.conversations.require(owner, input.conversation_id, keptSince(config, now))
    : await deps.conversations.create(owner, input.message, now);
  const stopped = new AbortController();
  clientSignal.addEventListener("abort", () => stopped.abort(), { once: true });
  const run: AgentRun = { inference: deps.inference(), config, model, tools: ToolSet.for(principal, deps.tools), history: conversation.messages, question: input.message, clock: deps.clock, signal: stopped.signal };

  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const emit: EmitChatEvent = (name, data) => {
        if (!stopped.signal.aborted) controller.enqueue(encodeChatEvent(name, data));
      };
      emit("start", { conversation_id: conversation.id, provider: model.provider, model: model.model });
      void answerTurn(deps, run, conversation, emit).finally(() => {
        if (!stopped.signal.aborted) controller.close();
      });
    },
    cancel: () => stopped.abort(),
  });
  return new Response(stream, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
}
