import { Elysia } from "elysia";
import { badRequest } from "../../http/errors";
import { CohereChatBody, type CohereChatRequest, CohereEmbedBody, type CohereEmbedRequest, CohereRerankBody, type CohereRerankRequest } from "../formats/cohere/request-schema";
import { fallbacksOf, handleInference, type Inference } from "../handle";
import type { Operation } from "../../upstream/operations";

type CohereBody = CohereChatRequest | CohereEmbedRequest | CohereRerankRequest;

/** A tool result answers one tool call; Cohere and every other provider need to know which. */
function requireToolCallIds(messages: CohereChatRequest["messages"]) {
  const index = messages.findIndex((message) => message.role === "tool" && !message.tool_call_id);
  if (index >= 0) throw badRequest("a tool message needs the tool_call_id of the call it answers", `messages[${index}].tool_call_id`);
}

/**
 * Cohere's v2 surface: chat (JSON and SSE), embed and rerank. A `provider/model` name reaches any
 * provider, translated where it speaks another format; a bare name goes to `mountProvider`.
 */
export function cohereMount(prefix: string, inference: Inference, mountProvider?: string) {
  const handle = (operation: Operation, { fallbacks, ...body }: CohereBody, request: Request, stream = false) =>
    handleInference(inference, {
      operation,
      format: "cohere",
      body,
      model: body.model,
      fallbacks: fallbacksOf({ fallbacks }, request.headers),
      stream,
      request,
      mountProvider,
    });

  return new Elysia({ name: `cohere-mount:${prefix}`, prefix })
    .post(
      "/v2/chat",
      ({ body, request }) => {
        requireToolCallIds(body.messages);
        return handle("chat", body, request, body.stream === true);
      },
      { body: CohereChatBody },
    )
    .post(
      "/v2/embed",
      ({ body, request }) => {
        if (!body.texts && !body.images && !body.inputs) throw badRequest("one of texts, images or inputs is required", "texts");
        return handle("embedding", body, request);
      },
      { body: CohereEmbedBody },
    )
    .post("/v2/rerank", ({ body, request }) => handle("rerank", body, request), { body: CohereRerankBody });
}
