import type { ChatRequest } from "../../canonical";
import type { FormatCodec } from "../types";
import { EVENT_STREAM_CONTENT_TYPE } from "./event-stream";
import { canonicalToConverse, converseToCanonical } from "./request";
import { canonicalToConverseResponse, converseResponseToCanonical } from "./response";
import { decodeConverseStream } from "./stream-decode";
import { encodeConverseStream } from "./stream-encode";
import type { ConverseRequest, ConverseResponse } from "./wire";

/** Bedrock's Converse API; ConverseStream travels as AWS's binary event stream. */
export const bedrockFormat: FormatCodec = {
  format: "bedrock",
  streamContentType: EVENT_STREAM_CONTENT_TYPE,
  chat: {
    decodeRequest: (body) => converseToCanonical(body as ConverseRequest),
    encodeRequest: (request: ChatRequest) => canonicalToConverse(request),
    decodeResponse: (body) => converseResponseToCanonical(body as ConverseResponse),
    encodeResponse: canonicalToConverseResponse,
    decodeStream: decodeConverseStream,
    encodeStream: encodeConverseStream,
    answersOneChoice: true,
  },
};
