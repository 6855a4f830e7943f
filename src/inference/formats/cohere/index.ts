import type { FormatCodec } from "../types";
import { chatRequestFromCohere, chatRequestToCohere } from "./chat-request";
import { chatResponseFromCohere, chatResponseToCohere } from "./chat-response";
import { cohereEmbedding } from "./embed";
import type { CohereChatRequest } from "./request-schema";
import { cohereSseDecoder, decodeCohereStream } from "./stream-decode";
import { encodeCohereStream } from "./stream-encode";
import type { CohereChatResponse } from "./wire";

/** Cohere's v2 API: /v2/chat (JSON and SSE) and /v2/embed. Rerank has no canonical shape and passes through only. */
export const cohereFormat: FormatCodec = {
  format: "cohere",
  streamContentType: "text/event-stream",
  chat: {
    // The /cohere mount has validated the body against CohereChatBody before it gets here.
    decodeRequest: (body) => chatRequestFromCohere(body as CohereChatRequest),
    encodeRequest: chatRequestToCohere,
    decodeResponse: (body) => chatResponseFromCohere(body as CohereChatResponse),
    encodeResponse: chatResponseToCohere,
    decodeStream: decodeCohereStream,
    sseDecoder: cohereSseDecoder,
    encodeStream: encodeCohereStream,
    answersOneChoice: true,
  },
  embedding: cohereEmbedding,
};
