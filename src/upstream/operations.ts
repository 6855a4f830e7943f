import { PROVIDER_OBJECT_CALLS, PROVIDER_OBJECT_OPERATIONS, type ProviderObjectOperation } from "./provider-objects";

/** What a request asks for, independent of the wire format it was written in. */
export type Operation =
  | "chat"
  | "text_completion"
  | "embedding"
  | "responses"
  | "count_tokens"
  | "rerank"
  | "invoke"
  | "speech"
  | "transcription"
  | "image_generation"
  | "image_edit"
  /** A video made by a long-running operation (Veo's `predictLongRunning`), polled by its name. */
  | "video_generation"
  | "translation"
  | "moderation"
  | "input_tokens"
  /** A Realtime API WebSocket session (its opening), and each response the model gives in one. */
  | "realtime"
  | "realtime_response"
  /** A Gemini Live API WebSocket session, and each turn the model takes in one. */
  | "live"
  | "live_turn"
  | FileOperation
  | BatchOperation
  | ProviderObjectOperation;

export type FileOperation = "file_upload" | "file_list" | "file_retrieve" | "file_content" | "file_delete";
export type BatchOperation = "batch_create" | "batch_list" | "batch_retrieve" | "batch_cancel" | "batch_results";

/** The wire formats clients and upstreams speak. */
export type WireFormat = "openai" | "anthropic" | "genai" | "bedrock" | "cohere";

/** The `object` a log row and an error's `request_type` name for each operation. */
export const REQUEST_TYPE: Record<Operation, string> = {
  chat: "chat.completion",
  text_completion: "text_completion",
  embedding: "embedding",
  responses: "response",
  count_tokens: "count_tokens",
  rerank: "rerank",
  invoke: "invoke",
  speech: "audio.speech",
  transcription: "audio.transcription",
  image_generation: "image.generation",
  image_edit: "image.edit",
  video_generation: "video.generation",
  translation: "audio.translation",
  moderation: "moderation",
  input_tokens: "response.input_tokens",
  realtime: "realtime.session",
  realtime_response: "realtime.response",
  live: "live.session",
  live_turn: "live.turn",
  file_upload: "file.upload",
  file_list: "file.list",
  file_retrieve: "file.retrieve",
  file_content: "file.content",
  file_delete: "file.delete",
  batch_create: "batch.create",
  batch_list: "batch.list",
  batch_retrieve: "batch.retrieve",
  batch_cancel: "batch.cancel",
  batch_results: "batch.results",
  ...(Object.fromEntries(PROVIDER_OBJECT_OPERATIONS.map((operation) => [operation, PROVIDER_OBJECT_CALLS[operation].requestType])) as Record<ProviderObjectOperation, string>),
};

const FILE_OPERATIONS: ReadonlySet<Operation> = new Set<FileOperation>(["file_upload", "file_list", "file_retrieve", "file_content", "file_delete"]);
const BATCH_OPERATIONS: ReadonlySet<Operation> = new Set<BatchOperation>(["batch_create", "batch_list", "batch_retrieve", "batch_cancel", "batch_results"]);

const PROVIDER_OBJECTS: ReadonlySet<Operation> = new Set(PROVIDER_OBJECT_OPERATIONS);

/** Batch and file calls go to the keys marked `use_for_batch_api`, whatever their model lists say. */
export const usesBatchKeys = (operation: Operation): operation is FileOperation | BatchOperation => FILE_OPERATIONS.has(operation) || BATCH_OPERATIONS.has(operation);
/** A call on an object the provider keeps names no model: any enabled key of the provider may make it. */
export const isProviderObjectOperation = (operation: Operation): operation is ProviderObjectOperation => PROVIDER_OBJECTS.has(operation);

/**
 * Operations with one wire shape on every route (OpenAI's, which Cohere's and Jina's rerank
 * share): the body reaches each adapter as the client wrote it, and each adapter maps it to its
 * upstream and the reply back, instead of translating through a format codec.
 */
const ONE_SHAPE: ReadonlySet<Operation> = new Set<Operation>(["rerank", "speech", "transcription", "translation", "image_generation", "image_edit", "video_generation", "moderation", "input_tokens", ...FILE_OPERATIONS, ...BATCH_OPERATIONS, ...PROVIDER_OBJECTS]);

export const hasOneShape = (operation: Operation) => ONE_SHAPE.has(operation);

/** The calls that only read or remove what a provider keeps (a video's poll, a file's content, a batch's results). */
const ONLY_READS: ReadonlySet<Operation> = new Set<Operation>([
  ...PROVIDER_OBJECT_OPERATIONS.filter((operation) => ["GET", "DELETE"].includes(PROVIDER_OBJECT_CALLS[operation].method)),
  ...(["file_list", "file_retrieve", "file_content", "file_delete", "batch_list", "batch_retrieve", "batch_results"] as const),
]);

/** Whether a call spends: anything but a read or removal of what a provider keeps. Budgets and token limits stop only calls that spend. */
export const spends = (operation: Operation) => !ONLY_READS.has(operation);
