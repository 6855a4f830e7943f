import { GatewayError } from "../../http/errors";
import { multipartBody, withoutContentType } from "../providers/multipart";
import type { UpstreamCall, UpstreamTarget } from "../../upstream/adapter";
import type { BatchApi, BatchCall, BatchOrFileOperation, BatchReply, SendUpstream } from "../../upstream/batch-api";

/** Where a path of the OpenAI API lives for a key (`{base}/files`, or Azure's `{endpoint}/openai/files?api-version=`). */
export type OpenAIUrl = (target: UpstreamTarget, path: string, query?: Record<string, string>) => string;

/** `{base_url}{path}?{query}`: OpenAI's own API. */
export const underBaseUrl: OpenAIUrl = (target, path, query = {}) => {
  if (!target.baseUrl) throw new Error("provider has no base_url");
  const search = new URLSearchParams(query).toString();
  return `${target.baseUrl.replace(/\/+$/, "")}${path}${search ? `?${search}` : ""}`;
};

const OPERATIONS: ReadonlySet<BatchOrFileOperation> = new Set(["file_upload", "file_list", "file_retrieve", "file_content", "file_delete", "batch_create", "batch_list", "batch_retrieve", "batch_cancel", "batch_results"]);

/** The fields OpenAI's batch creation takes; gateway extensions (`model`, `requests`) stay behind. */
const BATCH_FIELDS = ["input_file_id", "endpoint", "completion_window", "metadata", "output_expires_after"] as const;

/** The list query fields a client gave, as strings. */
function queryOf(body: Record<string, unknown>, fields: readonly string[]): Record<string, string> {
  return Object.fromEntries(fields.filter((field) => body[field] !== undefined).map((field) => [field, String(body[field])]));
}

/** The upstream id of the object a call is about, as a path segment. */
const idOf = (body: Record<string, unknown>) => encodeURIComponent(String(body.id));

const pick = (body: Record<string, unknown>, fields: readonly string[]) => Object.fromEntries(fields.filter((field) => field in body).map((field) => [field, body[field]]));

/** The output of a finished batch: its output file's content, as it comes. */
async function batchResults(call: BatchCall, url: OpenAIUrl, headers: Record<string, string>, send: SendUpstream): Promise<BatchReply> {
  const batch = await send({ url: url(call.target, `/batches/${idOf(call.body)}`), method: "GET", headers });
  if (batch instanceof GatewayError || !batch.ok || !("body" in batch)) return batch;
  const { output_file_id: outputFile, status } = JSON.parse(batch.body) as { output_file_id?: string | null; status?: string };
  if (!outputFile) return new GatewayError({ status: 409, errorType: "caller_batch_not_finished", message: `batch '${call.body.id}' has no results yet (status ${status})` });
  return send({ url: url(call.target, `/files/${encodeURIComponent(outputFile)}/content`), method: "GET", headers }, { stream: true });
}

function requestFor(call: BatchCall, url: OpenAIUrl, headers: Record<string, string>): UpstreamCall {
  const { target, body } = call;
  const get = (path: string, query?: Record<string, string>): UpstreamCall => ({ url: url(target, path, query), method: "GET", headers: withoutContentType(headers) });
  switch (call.operation) {
    case "file_upload":
      return { url: url(target, "/files"), headers: withoutContentType(headers), body: multipartBody(body) };
    case "file_list":
      return get("/files", queryOf(body, ["purpose", "limit", "after", "order"]));
    case "file_retrieve":
      return get(`/files/${idOf(body)}`);
    case "file_content":
      return get(`/files/${idOf(body)}/content`);
    case "file_delete":
      return { url: url(target, `/files/${idOf(body)}`), method: "DELETE", headers: withoutContentType(headers) };
    case "batch_create":
      return { url: url(target, "/batches"), headers, body: JSON.stringify(pick(body, BATCH_FIELDS)) };
    case "batch_list":
      return get("/batches", queryOf(body, ["limit", "after"]));
    case "batch_retrieve":
      return get(`/batches/${idOf(body)}`);
    default:
      return { url: url(target, `/batches/${idOf(body)}/cancel`), headers, body: "{}" };
  }
}

/** OpenAI's files and batches (and Azure OpenAI's, at its own URLs): the shapes are already OpenAI's. */
export function openAIBatches(url: OpenAIUrl, headersOf: (target: UpstreamTarget) => Record<string, string>): BatchApi {
  return {
    operations: OPERATIONS,
    run(call, send) {
      const headers = headersOf(call.target);
      if (call.operation === "batch_results") return batchResults(call, url, withoutContentType(headers), send);
      return send(requestFor(call, url, headers), { stream: call.operation === "file_content" });
    },
  };
}
