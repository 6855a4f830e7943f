import { badRequest, GatewayError } from "../../http/errors";
import { baseUrlOf, keyHeaders } from "../providers/gemini/keys";
import { replyText } from "../providers/media-replies";
import type { UpstreamTarget } from "../../upstream/adapter";
import { type BatchLine, chatReplyFrom, chatRequestIn, epochSeconds, jsonAnswer, jsonlReply, lineModel, outputLine, parseBatchLines } from "./lines";
import { type BatchApi, type BatchCall, type BatchOrFileOperation, type BatchReply, isBatchReply, type SendUpstream } from "../../upstream/batch-api";

interface GeminiFile {
  name: string;
  displayName?: string;
  sizeBytes?: string;
  createTime?: string;
  state?: string;
}

interface GeminiBatch {
  name: string;
  model?: string;
  state?: string;
  createTime?: string;
  endTime?: string;
  inputConfig?: { fileName?: string };
  output?: { responsesFile?: string; inlinedResponses?: { inlinedResponses?: InlinedResponse[] } };
  batchStats?: { requestCount?: string; successfulRequestCount?: string; failedRequestCount?: string };
}

interface InlinedResponse {
  response?: unknown;
  error?: { code?: number; message?: string };
  metadata?: { key?: string };
}

type ResultLine = { key?: string } & InlinedResponse;

const STATUS: Record<string, string> = {
  BATCH_STATE_PENDING: "validating",
  BATCH_STATE_RUNNING: "in_progress",
  BATCH_STATE_SUCCEEDED: "completed",
  BATCH_STATE_FAILED: "failed",
  BATCH_STATE_CANCELLED: "cancelled",
  BATCH_STATE_EXPIRED: "expired",
};

const shortId = (name: string | undefined, collection: string) => (name ? name.replace(`${collection}/`, "") : null);
const count = (value: string | undefined) => Number(value ?? 0);

/** Batch methods answer a long-running operation whose metadata is the batch; gets may answer the batch itself. */
const batchOf = (body: { metadata?: GeminiBatch; response?: GeminiBatch["output"] } & Partial<GeminiBatch>): GeminiBatch =>
  body.metadata ? { ...body.metadata, output: body.metadata.output ?? body.response } : (body as GeminiBatch);

function asOpenAIBatch(batch: GeminiBatch) {
  const stats = batch.batchStats ?? {};
  return {
    id: shortId(batch.name, "batches"),
    object: "batch",
    endpoint: "/v1/chat/completions",
    errors: null,
    input_file_id: shortId(batch.inputConfig?.fileName, "files"),
    completion_window: "24h",
    status: STATUS[batch.state ?? ""] ?? "validating",
    output_file_id: shortId(batch.output?.responsesFile, "files"),
    error_file_id: null,
    created_at: epochSeconds(batch.createTime),
    completed_at: batch.state === "BATCH_STATE_SUCCEEDED" ? epochSeconds(batch.endTime) : null,
    request_counts: { total: count(stats.requestCount), completed: count(stats.successfulRequestCount), failed: count(stats.failedRequestCount) },
    model: shortId(batch.model, "models"),
    metadata: null,
  };
}

const asOpenAIFile = (file: GeminiFile, extra: { purpose?: string; model?: string } = {}) => ({
  id: shortId(file.name, "files"),
  object: "file",
  bytes: count(file.sizeBytes),
  created_at: epochSeconds(file.createTime),
  filename: file.displayName ?? shortId(file.name, "files"),
  purpose: extra.purpose ?? "user_data",
  status: file.state === "FAILED" ? "error" : "processed",
  ...(extra.model ? { model: extra.model } : {}),
});

/** The upload and download hosts sit beside the versioned API root: `{host}/upload/v1beta`, `{host}/download/v1beta`. */
const besideApi = (target: UpstreamTarget, kind: "upload" | "download") => baseUrlOf(target).replace(/\/(v\d\w*)$/, `/${kind}/$1`);

type Json = Record<string, unknown>;

async function jsonCall(send: SendUpstream, url: string, target: UpstreamTarget, init: { method?: "GET" | "POST" | "DELETE"; body?: Json } = {}): Promise<Json | BatchReply> {
  const reply = await send({ url, method: init.method ?? "POST", headers: keyHeaders(target, init.body !== undefined), body: init.body && JSON.stringify(init.body) });
  if (reply instanceof GatewayError || !reply.ok || !("body" in reply)) return reply;
  return reply.body ? (JSON.parse(reply.body) as Json) : {};
}


/** A batch input file in Gemini's format (`{key, request}` lines), and the model its first line names. */
function geminiInput(text: string, call: BatchCall): { bytes: Uint8Array; model: string } {
  const lines = parseBatchLines(text, "file");
  if (lines.length === 0) throw badRequest("the batch input file has no requests", "file");
  const converted = lines.map((line) => JSON.stringify({ key: line.custom_id, request: requestOf(line, call) }));
  return { bytes: new TextEncoder().encode(`${converted.join("\n")}\n`), model: lineModel(lines[0]!, call.target, call.provider) };
}

function requestOf(line: BatchLine, call: BatchCall) {
  const { model: _model, ...request } = chatRequestIn("genai", line.body, lineModel(line, call.target, call.provider));
  return request;
}

/** Gemini's resumable upload: a start call that answers the upload URL, then the bytes, finalized. */
async function upload(call: BatchCall, send: SendUpstream): Promise<BatchReply> {
  const file = call.body.file as File;
  const purpose = String(call.body.purpose ?? "user_data");
  const converted = purpose === "batch" ? geminiInput(await file.text(), call) : undefined;
  const bytes = converted?.bytes ?? new Uint8Array(await file.arrayBuffer());
  const mimeType = converted ? "application/jsonl" : file.type || "application/octet-stream";
  const start = await send({
    url: `${besideApi(call.target, "upload")}/files`,
    headers: { ...keyHeaders(call.target), "x-goog-upload-protocol": "resumable", "x-goog-upload-command": "start", "x-goog-upload-header-content-length": String(bytes.byteLength), "x-goog-upload-header-content-type": mimeType },
    body: JSON.stringify({ file: { display_name: file.name } }),
  });
  if (start instanceof GatewayError || !start.ok) return start;
  const uploadUrl = start.headers.get("x-goog-upload-url");
  if (!uploadUrl) return new GatewayError({ status: 502, errorType: "provider_bad_response", message: "Gemini's upload start answered no x-goog-upload-url" });
  const done = await send({ url: uploadUrl, headers: { ...keyHeaders(call.target, false), "x-goog-upload-command": "upload, finalize", "x-goog-upload-offset": "0" }, body: bytes });
  if (done instanceof GatewayError || !done.ok || !("body" in done)) return done;
  return jsonAnswer(asOpenAIFile((JSON.parse(done.body) as { file: GeminiFile }).file, { purpose, model: converted?.model }));
}

async function create(call: BatchCall, send: SendUpstream): Promise<BatchReply> {
  const model = call.target.model;
  if (!model || model === "*") throw badRequest("a Gemini batch runs one model: name it in `model`, or upload the input file with purpose batch", "model");
  const inputConfig = call.body.input_file_id
    ? { file_name: `files/${call.body.input_file_id}` }
    : { requests: { requests: (call.body.requests as BatchLine[]).map((line) => ({ request: requestOf(line, call), metadata: { key: line.custom_id } })) } };
  const display = typeof call.body.metadata === "object" && call.body.metadata ? String((call.body.metadata as Json).display_name ?? "gateway-batch") : "gateway-batch";
  const created = await jsonCall(send, `${baseUrlOf(call.target)}/models/${model}:batchGenerateContent`, call.target, { body: { batch: { display_name: display, input_config: inputConfig } } });
  return isBatchReply(created) ? created : jsonAnswer(asOpenAIBatch(batchOf(created)));
}

async function retrieve(call: BatchCall, send: SendUpstream): Promise<GeminiBatch | BatchReply> {
  const found = await jsonCall(send, `${baseUrlOf(call.target)}/batches/${encodeURIComponent(String(call.body.id))}`, call.target, { method: "GET" });
  return isBatchReply(found) ? found : batchOf(found);
}

/** The output of a succeeded batch, from its responses file or inlined, as OpenAI's batch output lines. */
async function results(call: BatchCall, send: SendUpstream): Promise<BatchReply> {
  const found = await retrieve(call, send);
  if (isBatchReply(found)) return found;
  if (found.state !== "BATCH_STATE_SUCCEEDED") return new GatewayError({ status: 409, errorType: "caller_batch_not_finished", message: `batch '${call.body.id}' has no results yet (status ${STATUS[found.state ?? ""] ?? found.state})` });
  let lines: ResultLine[] = (found.output?.inlinedResponses?.inlinedResponses ?? []).map((inlined) => ({ ...inlined, key: inlined.metadata?.key }));
  if (found.output?.responsesFile) {
    const file = await send({ url: `${besideApi(call.target, "download")}/${found.output.responsesFile}:download?alt=media`, method: "GET", headers: keyHeaders(call.target, false) });
    if (file instanceof GatewayError || !file.ok) return file;
    lines = (await replyText(file)).split("\n").filter(Boolean).map((line) => JSON.parse(line) as ResultLine);
  }
  const model = shortId(found.model, "models") ?? "";
  return jsonlReply(lines.map((line, index) => (line.response ? outputLine(index, line.key ?? String(index), { body: chatReplyFrom("genai", line.response, model) }) : outputLine(index, line.key ?? String(index), { error: { code: String(line.error?.code ?? "error"), message: line.error?.message ?? "the request failed" } }))));
}

const OPERATIONS: ReadonlySet<BatchOrFileOperation> = new Set(["file_upload", "file_list", "file_retrieve", "file_content", "file_delete", "batch_create", "batch_list", "batch_retrieve", "batch_cancel", "batch_results"]);

/**
 * The Gemini API's batch mode and Files API in OpenAI's shapes. An input file uploaded with
 * purpose `batch` is converted line by line to Gemini's `{key, request}` format; results come
 * back converted to OpenAI's batch output lines.
 */
export const geminiBatches: BatchApi = {
  operations: OPERATIONS,
  async run(call, send) {
    const base = baseUrlOf(call.target);
    const id = encodeURIComponent(String(call.body.id));
    const mapped = async (url: string, init: Parameters<typeof jsonCall>[3], map: (body: Json) => unknown) => {
      const body = await jsonCall(send, url, call.target, init);
      return isBatchReply(body) ? body : jsonAnswer(map(body));
    };
    const size = new URLSearchParams({ pageSize: String(call.body.limit ?? 20) });
    switch (call.operation) {
      case "file_upload":
        return upload(call, send);
      case "file_list":
        return mapped(`${base}/files?${size}`, { method: "GET" }, (body) => ({ object: "list", data: ((body.files ?? []) as GeminiFile[]).map((file) => asOpenAIFile(file)), has_more: Boolean(body.nextPageToken) }));
      case "file_retrieve":
        return mapped(`${base}/files/${id}`, { method: "GET" }, (file) => asOpenAIFile(file as unknown as GeminiFile));
      case "file_content":
        return send({ url: `${besideApi(call.target, "download")}/files/${id}:download?alt=media`, method: "GET", headers: keyHeaders(call.target, false) }, { stream: true });
      case "file_delete":
        return mapped(`${base}/files/${id}`, { method: "DELETE" }, () => ({ id: call.body.id, object: "file", deleted: true }));
      case "batch_create":
        return create(call, send);
      case "batch_list":
        return mapped(`${base}/batches?${size}`, { method: "GET" }, (body) => ({ object: "list", data: ((body.operations ?? []) as Json[]).map((operation) => asOpenAIBatch(batchOf(operation))), has_more: Boolean(body.nextPageToken) }));
      case "batch_retrieve":
        return mapped(`${base}/batches/${id}`, { method: "GET" }, (body) => asOpenAIBatch(batchOf(body)));
      case "batch_cancel": {
        const cancelled = await jsonCall(send, `${base}/batches/${id}:cancel`, call.target, { body: {} });
        return isBatchReply(cancelled) ? cancelled : mapped(`${base}/batches/${id}`, { method: "GET" }, (body) => asOpenAIBatch(batchOf(body)));
      }
      default:
        return results(call, send);
    }
  },
};
