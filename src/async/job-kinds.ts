import { REQUEST_TYPE } from "../upstream/operations";

export interface AsyncKind {
  /** The path after /v1/async/. */
  name: string;
  /** The synchronous twin the job replays. */
  syncPath: string;
  requestType: string;
}

/** Every inference type except batches, files and containers (spec section 1). */
export const ASYNC_KINDS: readonly AsyncKind[] = [
  { name: "completions", syncPath: "/v1/completions", requestType: REQUEST_TYPE.text_completion },
  { name: "chat/completions", syncPath: "/v1/chat/completions", requestType: REQUEST_TYPE.chat },
  { name: "responses", syncPath: "/v1/responses", requestType: REQUEST_TYPE.responses },
  { name: "embeddings", syncPath: "/v1/embeddings", requestType: REQUEST_TYPE.embedding },
  { name: "audio/speech", syncPath: "/v1/audio/speech", requestType: REQUEST_TYPE.speech },
  { name: "audio/transcriptions", syncPath: "/v1/audio/transcriptions", requestType: REQUEST_TYPE.transcription },
  { name: "audio/translations", syncPath: "/v1/audio/translations", requestType: REQUEST_TYPE.translation },
  { name: "images/generations", syncPath: "/v1/images/generations", requestType: REQUEST_TYPE.image_generation },
  { name: "images/edits", syncPath: "/v1/images/edits", requestType: REQUEST_TYPE.image_edit },
  { name: "moderations", syncPath: "/v1/moderations", requestType: REQUEST_TYPE.moderation },
  { name: "rerank", syncPath: "/v1/rerank", requestType: REQUEST_TYPE.rerank },
];

/** Paths of the provider mounts whose reply is a stream: not offered asynchronously. */
const STREAMING_PATH = /(:streamGenerateContent|\/converse-stream|\/invoke-with-response-stream)$/;

export const isStreamingPath = (path: string) => STREAMING_PATH.test(path);

/** Paths of batches, files and containers (and what they hold), which have no async twin (spec section 1). */
const NOT_ASYNC_PATH = /\/(files|batches|containers)(\/|$)/;

export const hasNoAsyncTwin = (path: string) => NOT_ASYNC_PATH.test(path);

const MOUNT_REQUEST_TYPES: ReadonlyArray<readonly [RegExp, string]> = [
  [/(\/chat\/completions|\/messages|:generateContent|\/converse|\/v2\/chat)$/, REQUEST_TYPE.chat],
  [/(\/embeddings|\/embed|:embedContent|:batchEmbedContents)$/, REQUEST_TYPE.embedding],
  [/(\/completions|\/complete)$/, REQUEST_TYPE.text_completion],
  [/\/responses$/, REQUEST_TYPE.responses],
  [/\/rerank$/, REQUEST_TYPE.rerank],
  [/(\/count_tokens|:countTokens)$/, REQUEST_TYPE.count_tokens],
];

/** The request type of a call made on a provider or framework mount, from its path. */
export function requestTypeOfMountPath(path: string): string {
  return MOUNT_REQUEST_TYPES.find(([pattern]) => pattern.test(path))?.[1] ?? REQUEST_TYPE.invoke;
}
