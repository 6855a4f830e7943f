import type { FormatCodec } from "../types";
import { countGenaiTokensLocally } from "./count-tokens";
import { genaiEmbedding } from "./embedding";
import { canonicalToGenerateContent, generateContentToCanonical } from "./request";
import { canonicalToGenerateContentResponse, generateContentResponseToCanonical } from "./response";
import { decodeGenaiStream, encodeGenaiStream, encodeGenaiStreamError, genaiSseDecoder } from "./stream";

/** Gemini's generateContent / streamGenerateContent (SSE) / embedContent wire format, also spoken by Vertex. */
export const genaiFormat: FormatCodec = {
  format: "genai",
  streamContentType: "text/event-stream",
  chat: {
    decodeRequest: generateContentToCanonical,
    encodeRequest: canonicalToGenerateContent,
    decodeResponse: generateContentResponseToCanonical,
    encodeResponse: canonicalToGenerateContentResponse,
    decodeStream: decodeGenaiStream,
    sseDecoder: genaiSseDecoder,
    encodeStream: encodeGenaiStream,
    encodeStreamError: encodeGenaiStreamError,
  },
  embedding: genaiEmbedding,
  countTokensLocally: countGenaiTokensLocally,
};
