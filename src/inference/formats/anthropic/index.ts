import type { ChatRequest } from "../../canonical";
import type { FormatCodec } from "../types";
import { countMessagesTokensLocally } from "./count-tokens";
import { messagesRequestToCanonical } from "./request-decode";
import { canonicalToMessagesRequest } from "./request-encode";
import { canonicalToMessagesResponse, messagesResponseToCanonical } from "./response";
import { decodeMessagesStream, messagesSseDecoder } from "./stream-decode";
import { encodeMessagesStream, encodeMessagesStreamError } from "./stream-encode";
import type { MessagesRequest, MessagesResponse } from "./wire";

/** Anthropic's Messages API (spec 2.8), both ways, JSON and SSE. Embeddings are not part of it. */
export const anthropicFormat: FormatCodec = {
  format: "anthropic",
  streamContentType: "text/event-stream",
  chat: {
    decodeRequest: (body): ChatRequest => messagesRequestToCanonical(body as unknown as MessagesRequest),
    encodeRequest: (request) => canonicalToMessagesRequest(request) as unknown as Record<string, unknown>,
    decodeResponse: (body) => messagesResponseToCanonical(body as MessagesResponse),
    encodeResponse: canonicalToMessagesResponse,
    decodeStream: decodeMessagesStream,
    sseDecoder: messagesSseDecoder,
    encodeStream: encodeMessagesStream,
    encodeStreamError: encodeMessagesStreamError,
    answersOneChoice: true,
  },
  countTokensLocally: countMessagesTokensLocally,
};
