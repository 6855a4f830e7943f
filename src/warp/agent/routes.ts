import { Elysia } from "elysia";
import { principalOf } from "../../access";
import { type ChatDeps, ChatInput, startChat } from "./chat-session";

/** POST /api/warp/chat: one question, answered as server-sent events. */
export const chatRoutes = (deps: ChatDeps) =>
  new Elysia({ name: "warp-chat", prefix: "/api/warp" }).post("/chat", ({ body, request }) => startChat(deps, body, principalOf(request), request.signal), { body: ChatInput });
