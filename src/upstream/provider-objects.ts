import { upstreamFileId } from "./batch-ids";
import type { HttpMethod } from "./adapter";

/**
 * What a call's reply makes: a new object (its `id`, or Gemini's `name`), or `upload_session`: a
 * resumable upload, named by the `upload_id` of the upload URL the reply gives, or `location`: the
 * object the reply's `Location` header names (a Realtime call), or `video_files`: the files a
 * finished Veo operation made. Later calls on any go with the key that made it.
 */
export type Creates = true | "upload_session" | "location" | "video_files";

export interface ProviderObjectCall {
  method: HttpMethod;
  /** Under the API root, with `:name` for each id; also the gateway's route. */
  path: string;
  /** What the call is in the logs (`object`). */
  requestType: string;
  /**
   * A POST's or PATCH's body: required, or optional (a create that may be empty); JSON, or a multipart form
   * where the API takes a file. `bytes`: the raw bytes of an upload, passed as they came.
   */
  body?: "required" | "optional" | "bytes";
  /** The reply is passed on as it comes (a file's bytes), never read whole. */
  streams?: true;
  /** Headers of the provider's reply the client needs too (they carry the protocol, as Gemini's uploads do). */
  replyHeaders?: readonly string[];
  creates?: Creates;
  /** The call goes on with an upload session, named by its `upload_id` query parameter. */
  inUploadSession?: true;
  /** The call spends: its reply is priced (a video made, by its seconds). Other calls on kept objects only read or change them. */
  bills?: true;
}

/**
 * Objects OpenAI's API keeps for its clients: responses, chat completions created with
 * `store: true`, conversations, code interpreter containers and their files, uploads in parts,
 * fine-tuning jobs, vector stores for file search. Each call on one is a method and a path under
 * the API root, the same on OpenAI's and Azure's v1 surface. The paths are also the gateway's
 * routes, under every OpenAI-format mount.
 */
export const OPENAI_OBJECT_CALLS = {
  response_retrieve: { method: "GET", path: "/responses/:id", requestType: "response.retrieve" },
  response_input_items: { method: "GET", path: "/responses/:id/input_items", requestType: "response.input_items" },
  response_delete: { method: "DELETE", path: "/responses/:id", requestType: "response.delete" },
  response_cancel: { method: "POST", path: "/responses/:id/cancel", requestType: "response.cancel" },
  // Sora: a create (from a prompt, an edit or extension of a video, a remix) queues a video, polled until its content can be downloaded.
  video_create: { method: "POST", path: "/videos", requestType: "video.create", body: "required", creates: true, bills: true },
  video_list: { method: "GET", path: "/videos", requestType: "video.list" },
  video_retrieve: { method: "GET", path: "/videos/:id", requestType: "video.retrieve" },
  video_delete: { method: "DELETE", path: "/videos/:id", requestType: "video.delete" },
  video_content: { method: "GET", path: "/videos/:id/content", requestType: "video.content", streams: true },
  video_remix: { method: "POST", path: "/videos/:id/remix", requestType: "video.remix", body: "required", creates: true, bills: true },
  video_edit: { method: "POST", path: "/videos/edits", requestType: "video.edit", body: "required", creates: true, bills: true },
  video_extend: { method: "POST", path: "/videos/extensions", requestType: "video.extend", body: "required", creates: true, bills: true },
  video_character_create: { method: "POST", path: "/videos/characters", requestType: "video.character.create", body: "required", creates: true },
  video_character_get: { method: "GET", path: "/videos/characters/:id", requestType: "video.character.retrieve" },
  // Evals: an eval's criteria, runs of it over a data source (OpenAI samples and grades them), and each run's graded items.
  eval_create: { method: "POST", path: "/evals", requestType: "eval.create", body: "required", creates: true },
  eval_list: { method: "GET", path: "/evals", requestType: "eval.list" },
  eval_retrieve: { method: "GET", path: "/evals/:id", requestType: "eval.retrieve" },
  eval_update: { method: "POST", path: "/evals/:id", requestType: "eval.update", body: "required" },
  eval_delete: { method: "DELETE", path: "/evals/:id", requestType: "eval.delete" },
  eval_run_create: { method: "POST", path: "/evals/:id/runs", requestType: "eval.run.create", body: "required" },
  eval_run_list: { method: "GET", path: "/evals/:id/runs", requestType: "eval.run.list" },
  eval_run_retrieve: { method: "GET", path: "/evals/:id/runs/:run_id", requestType: "eval.run.retrieve" },
  eval_run_cancel: { method: "POST", path: "/evals/:id/runs/:run_id", requestType: "eval.run.cancel", body: "optional" },
  eval_run_delete: { method: "DELETE", path: "/evals/:id/runs/:run_id", requestType: "eval.run.delete" },
  eval_output_item_list: { method: "GET", path: "/evals/:id/runs/:run_id/output_items", requestType: "eval.run.output_item.list" },
  eval_output_item_retrieve: { method: "GET", path: "/evals/:id/runs/:run_id/output_items/:item_id", requestType: "eval.run.output_item.retrieve" },
  // A browser's WebRTC offer (SDP, alone or in a form with the session) starts a call; the answer is SDP, the call's URL in `Location`.
  realtime_call_create: { method: "POST", path: "/realtime/calls", requestType: "realtime.call.create", body: "bytes", replyHeaders: ["location"], creates: "location" },
  // A Realtime call (WebRTC, SIP) is answered, transferred or ended here; its events come on the sideband socket (`/realtime?call_id=`).
  realtime_call_accept: { method: "POST", path: "/realtime/calls/:id/accept", requestType: "realtime.call.accept", body: "required" },
  realtime_call_hangup: { method: "POST", path: "/realtime/calls/:id/hangup", requestType: "realtime.call.hangup", body: "optional" },
  realtime_call_refer: { method: "POST", path: "/realtime/calls/:id/refer", requestType: "realtime.call.refer", body: "required" },
  realtime_call_reject: { method: "POST", path: "/realtime/calls/:id/reject", requestType: "realtime.call.reject", body: "optional" },
  // An ephemeral key for a browser's own Realtime session (WebRTC), which then talks to the provider directly.
  realtime_client_secret_create: { method: "POST", path: "/realtime/client_secrets", requestType: "realtime.client_secret.create", body: "optional" },
  chat_completion_list: { method: "GET", path: "/chat/completions", requestType: "chat.completion.list" },
  chat_completion_retrieve: { method: "GET", path: "/chat/completions/:id", requestType: "chat.completion.retrieve" },
  chat_completion_update: { method: "POST", path: "/chat/completions/:id", requestType: "chat.completion.update", body: "required" },
  chat_completion_delete: { method: "DELETE", path: "/chat/completions/:id", requestType: "chat.completion.delete" },
  chat_completion_messages: { method: "GET", path: "/chat/completions/:id/messages", requestType: "chat.completion.messages" },
  conversation_create: { method: "POST", path: "/conversations", requestType: "conversation.create", body: "optional", creates: true },
  conversation_retrieve: { method: "GET", path: "/conversations/:id", requestType: "conversation.retrieve" },
  conversation_update: { method: "POST", path: "/conversations/:id", requestType: "conversation.update", body: "required" },
  conversation_delete: { method: "DELETE", path: "/conversations/:id", requestType: "conversation.delete" },
  conversation_items_list: { method: "GET", path: "/conversations/:id/items", requestType: "conversation.items.list" },
  conversation_items_create: { method: "POST", path: "/conversations/:id/items", requestType: "conversation.items.create", body: "required" },
  conversation_item_retrieve: { method: "GET", path: "/conversations/:id/items/:item_id", requestType: "conversation.item.retrieve" },
  conversation_item_delete: { method: "DELETE", path: "/conversations/:id/items/:item_id", requestType: "conversation.item.delete" },
  container_create: { method: "POST", path: "/containers", requestType: "container.create", body: "required", creates: true },
  container_list: { method: "GET", path: "/containers", requestType: "container.list" },
  container_retrieve: { method: "GET", path: "/containers/:id", requestType: "container.retrieve" },
  container_delete: { method: "DELETE", path: "/containers/:id", requestType: "container.delete" },
  container_file_create: { method: "POST", path: "/containers/:id/files", requestType: "container.file.create", body: "required" },
  container_files_list: { method: "GET", path: "/containers/:id/files", requestType: "container.files.list" },
  container_file_retrieve: { method: "GET", path: "/containers/:id/files/:file_id", requestType: "container.file.retrieve" },
  container_file_content: { method: "GET", path: "/containers/:id/files/:file_id/content", requestType: "container.file.content", streams: true },
  container_file_delete: { method: "DELETE", path: "/containers/:id/files/:file_id", requestType: "container.file.delete" },
  upload_create: { method: "POST", path: "/uploads", requestType: "upload.create", body: "required", creates: true },
  upload_part_add: { method: "POST", path: "/uploads/:id/parts", requestType: "upload.part.add", body: "required" },
  upload_complete: { method: "POST", path: "/uploads/:id/complete", requestType: "upload.complete", body: "required" },
  upload_cancel: { method: "POST", path: "/uploads/:id/cancel", requestType: "upload.cancel", body: "optional" },
  fine_tuning_job_create: { method: "POST", path: "/fine_tuning/jobs", requestType: "fine_tuning.job.create", body: "required", creates: true },
  fine_tuning_job_list: { method: "GET", path: "/fine_tuning/jobs", requestType: "fine_tuning.job.list" },
  fine_tuning_job_retrieve: { method: "GET", path: "/fine_tuning/jobs/:id", requestType: "fine_tuning.job.retrieve" },
  fine_tuning_job_cancel: { method: "POST", path: "/fine_tuning/jobs/:id/cancel", requestType: "fine_tuning.job.cancel", body: "optional" },
  fine_tuning_job_pause: { method: "POST", path: "/fine_tuning/jobs/:id/pause", requestType: "fine_tuning.job.pause", body: "optional" },
  fine_tuning_job_resume: { method: "POST", path: "/fine_tuning/jobs/:id/resume", requestType: "fine_tuning.job.resume", body: "optional" },
  fine_tuning_job_events: { method: "GET", path: "/fine_tuning/jobs/:id/events", requestType: "fine_tuning.job.events" },
  fine_tuning_job_checkpoints: { method: "GET", path: "/fine_tuning/jobs/:id/checkpoints", requestType: "fine_tuning.job.checkpoints" },
  vector_store_create: { method: "POST", path: "/vector_stores", requestType: "vector_store.create", body: "optional", creates: true },
  vector_store_list: { method: "GET", path: "/vector_stores", requestType: "vector_store.list" },
  vector_store_retrieve: { method: "GET", path: "/vector_stores/:id", requestType: "vector_store.retrieve" },
  vector_store_update: { method: "POST", path: "/vector_stores/:id", requestType: "vector_store.update", body: "required" },
  vector_store_delete: { method: "DELETE", path: "/vector_stores/:id", requestType: "vector_store.delete" },
  vector_store_search: { method: "POST", path: "/vector_stores/:id/search", requestType: "vector_store.search", body: "required" },
  vector_store_file_create: { method: "POST", path: "/vector_stores/:id/files", requestType: "vector_store.file.create", body: "required" },
  vector_store_files_list: { method: "GET", path: "/vector_stores/:id/files", requestType: "vector_store.files.list" },
  vector_store_file_retrieve: { method: "GET", path: "/vector_stores/:id/files/:file_id", requestType: "vector_store.file.retrieve" },
  vector_store_file_update: { method: "POST", path: "/vector_stores/:id/files/:file_id", requestType: "vector_store.file.update", body: "required" },
  vector_store_file_delete: { method: "DELETE", path: "/vector_stores/:id/files/:file_id", requestType: "vector_store.file.delete" },
  vector_store_file_content: { method: "GET", path: "/vector_stores/:id/files/:file_id/content", requestType: "vector_store.file.content" },
  vector_store_file_batch_create: { method: "POST", path: "/vector_stores/:id/file_batches", requestType: "vector_store.file_batch.create", body: "required" },
  vector_store_file_batch_retrieve: { method: "GET", path: "/vector_stores/:id/file_batches/:batch_id", requestType: "vector_store.file_batch.retrieve" },
  vector_store_file_batch_cancel: { method: "POST", path: "/vector_stores/:id/file_batches/:batch_id/cancel", requestType: "vector_store.file_batch.cancel", body: "optional" },
  vector_store_file_batch_files: { method: "GET", path: "/vector_stores/:id/file_batches/:batch_id/files", requestType: "vector_store.file_batch.files" },
} as const satisfies Record<string, ProviderObjectCall>;

/**
 * What Anthropic's API keeps: message batches (created through `POST /v1/messages/batches`, the
 * wildcard route) and files (the files beta). Routes under every Anthropic-format mount.
 */
export const ANTHROPIC_OBJECT_CALLS = {
  message_batch_list: { method: "GET", path: "/messages/batches", requestType: "message_batch.list" },
  message_batch_retrieve: { method: "GET", path: "/messages/batches/:id", requestType: "message_batch.retrieve" },
  message_batch_results: { method: "GET", path: "/messages/batches/:id/results", requestType: "message_batch.results", streams: true },
  message_batch_cancel: { method: "POST", path: "/messages/batches/:id/cancel", requestType: "message_batch.cancel", body: "optional" },
  message_batch_delete: { method: "DELETE", path: "/messages/batches/:id", requestType: "message_batch.delete" },
  // Agent skills: a skill is uploaded as its folder's files, then versioned; messages name it in `container.skills`.
  anthropic_skill_create: { method: "POST", path: "/skills", requestType: "anthropic_skill.create", body: "required", creates: true },
  anthropic_skill_list: { method: "GET", path: "/skills", requestType: "anthropic_skill.list" },
  anthropic_skill_retrieve: { method: "GET", path: "/skills/:id", requestType: "anthropic_skill.retrieve" },
  anthropic_skill_delete: { method: "DELETE", path: "/skills/:id", requestType: "anthropic_skill.delete" },
  anthropic_skill_version_create: { method: "POST", path: "/skills/:id/versions", requestType: "anthropic_skill.version.create", body: "required" },
  anthropic_skill_version_list: { method: "GET", path: "/skills/:id/versions", requestType: "anthropic_skill.version.list" },
  anthropic_skill_version_retrieve: { method: "GET", path: "/skills/:id/versions/:version", requestType: "anthropic_skill.version.retrieve" },
  anthropic_skill_version_delete: { method: "DELETE", path: "/skills/:id/versions/:version", requestType: "anthropic_skill.version.delete" },
  anthropic_skill_version_content: { method: "GET", path: "/skills/:id/versions/:version/content", requestType: "anthropic_skill.version.content", streams: true },
  anthropic_file_upload: { method: "POST", path: "/files", requestType: "anthropic_file.upload", body: "required", creates: true },
  anthropic_file_list: { method: "GET", path: "/files", requestType: "anthropic_file.list" },
  anthropic_file_retrieve: { method: "GET", path: "/files/:id", requestType: "anthropic_file.retrieve" },
  anthropic_file_content: { method: "GET", path: "/files/:id/content", requestType: "anthropic_file.content", streams: true },
  anthropic_file_delete: { method: "DELETE", path: "/files/:id", requestType: "anthropic_file.delete" },
} as const satisfies Record<string, ProviderObjectCall>;

/** What a resumable upload's replies say: where to send the bytes, and how far the upload is. */
const UPLOAD_PROTOCOL_HEADERS = ["x-goog-upload-url", "x-goog-upload-status", "x-goog-upload-chunk-granularity", "x-goog-upload-size-received"] as const;

/**
 * What the Gemini API keeps: files, which prompts name by `fileData.fileUri`, and cached
 * contents, which they name by `cachedContent`. Paths under the API's host, since uploads sit
 * beside the versioned root: a start call answers the URL of the upload, where the bytes go next.
 * Routes under every Gemini-format mount.
 */
export const GEMINI_OBJECT_CALLS = {
  gemini_file_upload_start: { method: "POST", path: "/upload/v1beta/files", requestType: "gemini_file.upload", body: "required", replyHeaders: UPLOAD_PROTOCOL_HEADERS, creates: "upload_session" },
  gemini_file_upload_bytes: { method: "POST", path: "/upload/v1beta/files", requestType: "gemini_file.upload_bytes", body: "bytes", replyHeaders: UPLOAD_PROTOCOL_HEADERS, creates: true, inUploadSession: true },
  gemini_file_list: { method: "GET", path: "/v1beta/files", requestType: "gemini_file.list" },
  gemini_file_get: { method: "GET", path: "/v1beta/files/:name", requestType: "gemini_file.get" },
  gemini_file_delete: { method: "DELETE", path: "/v1beta/files/:name", requestType: "gemini_file.delete" },
  /** A file's bytes: how a video Veo made is fetched. */
  gemini_file_download: { method: "GET", path: "/v1beta/files/:name:download", requestType: "gemini_file.download", streams: true },
  /** A long-running operation (a Veo video being made), polled until `done`. */
  gemini_operation_get: { method: "GET", path: "/v1beta/models/:model/operations/:id", requestType: "gemini_operation.get", creates: "video_files" },
  gemini_cache_create: { method: "POST", path: "/v1beta/cachedContents", requestType: "gemini_cache.create", body: "required", creates: true },
  gemini_cache_list: { method: "GET", path: "/v1beta/cachedContents", requestType: "gemini_cache.list" },
  gemini_cache_get: { method: "GET", path: "/v1beta/cachedContents/:id", requestType: "gemini_cache.get" },
  gemini_cache_update: { method: "PATCH", path: "/v1beta/cachedContents/:id", requestType: "gemini_cache.update", body: "required" },
  gemini_cache_delete: { method: "DELETE", path: "/v1beta/cachedContents/:id", requestType: "gemini_cache.delete" },
  /** An ephemeral token for the Live API, minted with the gateway's key: a browser opens its session with Google directly. */
  gemini_auth_token_create: { method: "POST", path: "/v1alpha/auth_tokens", requestType: "gemini_auth_token.create", body: "required" },
} as const satisfies Record<string, ProviderObjectCall>;

export const PROVIDER_OBJECT_CALLS: Record<ProviderObjectOperation, ProviderObjectCall> = { ...OPENAI_OBJECT_CALLS, ...ANTHROPIC_OBJECT_CALLS, ...GEMINI_OBJECT_CALLS };

export type OpenAIObjectOperation = keyof typeof OPENAI_OBJECT_CALLS;
export type AnthropicObjectOperation = keyof typeof ANTHROPIC_OBJECT_CALLS;
export type GeminiObjectOperation = keyof typeof GEMINI_OBJECT_CALLS;
export type ProviderObjectOperation = OpenAIObjectOperation | AnthropicObjectOperation | GeminiObjectOperation;

export const OPENAI_OBJECT_OPERATIONS = Object.keys(OPENAI_OBJECT_CALLS) as OpenAIObjectOperation[];
/** The calls on stored responses: every server with a Responses API may keep its responses, where only OpenAI keeps the rest. */
export const RESPONSE_OBJECT_OPERATIONS: readonly OpenAIObjectOperation[] = ["response_retrieve", "response_input_items", "response_delete", "response_cancel"];
export const ANTHROPIC_OBJECT_OPERATIONS = Object.keys(ANTHROPIC_OBJECT_CALLS) as AnthropicObjectOperation[];
export const GEMINI_OBJECT_OPERATIONS = Object.keys(GEMINI_OBJECT_CALLS) as GeminiObjectOperation[];
export const PROVIDER_OBJECT_OPERATIONS: ProviderObjectOperation[] = [...OPENAI_OBJECT_OPERATIONS, ...ANTHROPIC_OBJECT_OPERATIONS, ...GEMINI_OBJECT_OPERATIONS];

/** What reaches the adapter of a call on a kept object: the path with its ids filled in, the client's query string, its JSON body or raw bytes (with their content type). */
export type ProviderObjectBody = { path: string; search: string; json?: unknown; bytes?: ArrayBuffer; contentType?: string };

/** A `:param` opens a path segment; a colon inside one starts a method (`files/:name:download`). */
export const PATH_PARAM = /(?<=\/):(\w+)/g;

/** The call's path under the API root, each `:param` replaced by its value; a file named by the gateway's id, by the provider's. */
export const providerObjectPath = (operation: ProviderObjectOperation, params: Record<string, string>) =>
  PROVIDER_OBJECT_CALLS[operation].path.replace(PATH_PARAM, (_, name: string) => encodeURIComponent(upstreamFileId(params[name] ?? "")));
