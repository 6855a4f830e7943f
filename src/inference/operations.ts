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
  | "input_tokens"
  | FileOperation
  | BatchOperation
  | ResponseObjectOperation;

export type FileOperation = "file_upload" | "file_list" | "file_retrieve" | "file_content" | "file_delete";
export type BatchOperation = "batch_create" | "batch_list" | "batch_retrieve" | "batch_cancel" | "batch_results";
/** Calls on a response the provider keeps (OpenAI's Responses API): read it back, list its input, delete it, cancel it. */
export type ResponseObjectOperation = "response_retrieve" | "response_input_items" | "response_delete" | "response_cancel";

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
  input_tokens: "response.input_tokens",
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
  response_retrieve: "response.retrieve",
  response_input_items: "response.input_items",
  response_delete: "response.delete",
  response_cancel: "response.cancel",
};

const FILE_OPERATIONS: ReadonlySet<Operation> = new Set<FileOperation>(["file_upload", "file_list", "file_retrieve", "file_content", "file_delete"]);
const BATCH_OPERATIONS: ReadonlySet<Operation> = new Set<BatchOperation>(["batch_create", "batch_list", "batch_retrieve", "batch_cancel", "batch_results"]);

export const RESPONSE_OBJECT_OPERATIONS: readonly ResponseObjectOperation[] = ["response_retrieve", "response_input_items", "response_delete", "response_cancel"];
const RESPONSE_OBJECTS: ReadonlySet<Operation> = new Set(RESPONSE_OBJECT_OPERATIONS);

/** Batch and file calls go to the keys marked `use_for_batch_api`, whatever their model lists say. */
export const usesBatchKeys = (operation: Operation): operation is FileOperation | BatchOperation => FILE_OPERATIONS.has(operation) || BATCH_OPERATIONS.has(operation);
/** A call on a stored response names no model: any enabled key of the provider may make it. */
export const isResponseObjectOperation = (operation: Operation): operation is ResponseObjectOperation => RESPONSE_OBJECTS.has(operation);

/**
 * Operations with one wire shape on every route (OpenAI's, which Cohere's and Jina's rerank
 * share): the body reaches each adapter as the client wrote it, and each adapter maps it to its
 * upstream and the reply back, instead of translating through a format codec.
 */
const ONE_SHAPE: ReadonlySet<Operation> = new Set<Operation>(["rerank", "speech", "transcription", "image_generation", "input_tokens", ...FILE_OPERATIONS, ...BATCH_OPERATIONS, ...RESPONSE_OBJECTS]);

export const hasOneShape = (operation: Operation) => ONE_SHAPE.has(operation);
