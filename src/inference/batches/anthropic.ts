import { badRequest, GatewayError } from "../../http/errors";
import { replyText } from "../providers/media-replies";
import { multipartBody, withoutContentType } from "../providers/multipart";
import type { UpstreamCall, UpstreamTarget } from "../../upstream/adapter";
import { type BatchLine, chatReplyFrom, chatRequestIn, epochSeconds, jsonlReply, lineModel, outputLine } from "./lines";
import type { BatchApi, BatchCall, BatchOrFileOperation, BatchReply, SendUpstream, UpstreamSuccess } from "../../upstream/batch-api";

const FILES_BETA = "files-api-2025-04-14";

interface MessageBatch {
  id: string;
  processing_status: "in_progress" | "canceling" | "ended";
  request_counts: { processing: number; succeeded: number; errored: number; canceled: number; expired: number };
  created_at: string;
  ended_at: string | null;
  expires_at: string;
  cancel_initiated_at: string | null;
  results_url: string | null;
}

interface AnthropicFile {
  id: string;
  filename: string;
  size_bytes: number;
  created_at: string;
}

type ResultLine = { custom_id: string; result: { type: "succeeded"; message: unknown } | { type: "errored"; error: { error?: { type?: string; message?: string } } } | { type: "canceled" | "expired" } };

export interface AnthropicEndpoints {
  baseOf(target: UpstreamTarget): string;
  headersOf(target: UpstreamTarget): Record<string, string>;
}

function statusOf(batch: MessageBatch): string {
  if (batch.processing_status === "in_progress") return "in_progress";
  if (batch.processing_status === "canceling") return "cancelling";
  return batch.cancel_initiated_at ? "cancelled" : "completed";
}

/** A message batch as OpenAI's batch object. */
function asOpenAIBatch(batch: MessageBatch) {
  const counts = batch.request_counts;
  return {
    id: batch.id,
    object: "batch",
    endpoint: "/v1/chat/completions",
    errors: null,
    input_file_id: null,
    completion_window: "24h",
    status: statusOf(batch),
    output_file_id: null,
    error_file_id: null,
    created_at: epochSeconds(batch.created_at),
    expires_at: epochSeconds(batch.expires_at),
    completed_at: batch.cancel_initiated_at ? null : epochSeconds(batch.ended_at),
    cancelling_at: epochSeconds(batch.cancel_initiated_at),
    cancelled_at: batch.cancel_initiated_at ? epochSeconds(batch.ended_at) : null,
    request_counts: { total: Object.values(counts).reduce((sum, count) => sum + count, 0), completed: counts.succeeded, failed: counts.errored + counts.canceled + counts.expired },
    metadata: null,
  };
}

const asOpenAIFile = (file: AnthropicFile, purpose = "user_data") => ({ id: file.id, object: "file", bytes: file.size_bytes, created_at: epochSeconds(file.created_at), filename: file.filename, purpose, status: "processed" });

/** Anthropic's `{data, has_more, first_id, last_id}` pages, with each item mapped. */
const asOpenAIList = <T>(page: { data: T[]; has_more: boolean; first_id: string | null; last_id: string | null }, map: (item: T) => unknown) => ({ object: "list", data: page.data.map(map), has_more: page.has_more, first_id: page.first_id, last_id: page.last_id });

function requestsOf(call: BatchCall) {
  if (!Array.isArray(call.body.requests)) throw badRequest("Anthropic message batches take their requests inline: send `requests` (OpenAI batch lines) instead of input_file_id", "requests");
  return (call.body.requests as BatchLine[]).map((line) => ({ custom_id: line.custom_id, params: chatRequestIn("anthropic", line.body, lineModel(line, call.target, call.provider)) }));
}

function resultLine(line: ResultLine, index: number): string {
  const result = line.result;
  if (result.type === "succeeded") return outputLine(index, line.custom_id, { body: chatReplyFrom("anthropic", result.message, "") });
  if (result.type === "errored") return outputLine(index, line.custom_id, { error: { code: result.error.error?.type ?? "errored", message: result.error.error?.message ?? "the request failed" } });
  return outputLine(index, line.custom_id, { error: { code: result.type, message: `the request was ${result.type} before it ran` } });
}

/** Sends a call and maps its JSON answer. */
async function mapped(send: SendUpstream, call: UpstreamCall, map: (body: never) => unknown): Promise<BatchReply> {
  const reply = await send(call);
  if (reply instanceof GatewayError || !reply.ok || !("body" in reply)) return reply;
  return { ...reply, body: JSON.stringify(map(JSON.parse(reply.body) as never)) } satisfies UpstreamSuccess;
}

/** The results of an ended batch, each line as OpenAI's batch output line. */
async function results(call: BatchCall, url: (path: string) => string, headers: Record<string, string>, send: SendUpstream): Promise<BatchReply> {
  const get = (path: string) => send({ url: url(path), method: "GET", headers });
  const batch = await get(`/messages/batches/${encodeURIComponent(String(call.body.id))}`);
  if (batch instanceof GatewayError || !batch.ok || !("body" in batch)) return batch;
  const found = JSON.parse(batch.body) as MessageBatch;
  if (found.processing_status !== "ended") return new GatewayError({ status: 409, errorType: "caller_batch_not_finished", message: `batch '${found.id}' has no results yet (status ${statusOf(found)})` });
  const lines = await get(`/messages/batches/${encodeURIComponent(found.id)}/results`);
  if (lines instanceof GatewayError || !lines.ok) return lines;
  const parsed = (await replyText(lines)).split("\n").filter(Boolean).map((line) => JSON.parse(line) as ResultLine);
  return jsonlReply(parsed.map(resultLine));
}

const OPERATIONS: ReadonlySet<BatchOrFileOperation> = new Set(["file_upload", "file_list", "file_retrieve", "file_content", "file_delete", "batch_create", "batch_list", "batch_retrieve", "batch_cancel", "batch_results"]);

/**
 * Anthropic's message batches and files in OpenAI's shapes. A batch's requests come inline (its
 * files cannot be read back, so an input file cannot feed one); each is translated from OpenAI's
 * chat format, and the results are translated back line by line.
 */
export function anthropicBatchApi({ baseOf, headersOf }: AnthropicEndpoints): BatchApi {
  return {
    operations: OPERATIONS,
    run(call, send) {
      const url = (path: string) => `${baseOf(call.target)}${path}`;
      const headers = withoutContentType(headersOf(call.target));
      const fileHeaders = { ...headers, "anthropic-beta": [headers["anthropic-beta"], FILES_BETA].filter(Boolean).join(",") };
      const id = encodeURIComponent(String(call.body.id));
      const page = (path: string) => `${url(path)}?${new URLSearchParams({ limit: String(call.body.limit ?? 20), ...(call.body.after ? { after_id: String(call.body.after) } : {}) })}`;
      const purpose = typeof call.body.purpose === "string" ? call.body.purpose : undefined;
      switch (call.operation) {
        case "batch_create":
          return mapped(send, { url: url("/messages/batches"), headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ requests: requestsOf(call) }) }, asOpenAIBatch);
        case "batch_retrieve":
          return mapped(send, { url: url(`/messages/batches/${id}`), method: "GET", headers }, asOpenAIBatch);
        case "batch_cancel":
          return mapped(send, { url: url(`/messages/batches/${id}/cancel`), headers }, asOpenAIBatch);
        case "batch_list":
          return mapped(send, { url: page("/messages/batches"), method: "GET", headers }, (body: Parameters<typeof asOpenAIList<MessageBatch>>[0]) => asOpenAIList(body, asOpenAIBatch));
        case "batch_results":
          return results(call, url, headers, send);
        case "file_upload":
          return mapped(send, { url: url("/files"), headers: fileHeaders, body: multipartBody({ file: call.body.file }) }, (file: AnthropicFile) => asOpenAIFile(file, purpose));
        case "file_list":
          return mapped(send, { url: page("/files"), method: "GET", headers: fileHeaders }, (body: Parameters<typeof asOpenAIList<AnthropicFile>>[0]) => asOpenAIList(body, (file) => asOpenAIFile(file)));
        case "file_retrieve":
          return mapped(send, { url: url(`/files/${id}`), method: "GET", headers: fileHeaders }, (file: AnthropicFile) => asOpenAIFile(file));
        case "file_content":
          return send({ url: url(`/files/${id}/content`), method: "GET", headers: fileHeaders }, { stream: true });
        default:
          return mapped(send, { url: url(`/files/${id}`), method: "DELETE", headers: fileHeaders }, (file: { id: string }) => ({ id: file.id, object: "file", deleted: true }));
      }
    },
  };
}
