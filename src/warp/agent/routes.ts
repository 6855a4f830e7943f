import { Elysia } from "elysia";
import { principalOf } from "../../access";
import { eventStream, sentReplies } from "../../http/replies";
import { type ChatDeps, ChatInput, startChat } from "./chat-session";

/** POST /api/warp/chat: one question, answered as server-sent events. */
export const chatRoutes = (deps: ChatDeps) =>
  new Elysia({ name: "warp-chat", prefix: "/api/warp" }).post("/chat", ({ body, request }) => startChat(deps, body, principalOf(request), request.signal), {
    body: ChatInput,
    ...sentReplies(
      {
        200: eventStream(
          "Server-sent events, in order: `start` ({conversation_id, provider, model}), `delta` ({content}) as the answer is written, `tool_call_start` and `tool_call_end` around each tool the agent runs, then `done` ({conversation_id, finish_reason, iterations, usage}), or `error` with the gateway's error body.",
        ),
      },
      { summary: "Ask Warp", description: "One question in a new or saved conversation, answered as it is written." },
    ),
  });
