import { randomUUID } from "node:crypto";
import { badRequest, GatewayError } from "../../http/errors";
import { bearerOrNone, controlPlaneOf, credentialsOf, keyConfigOf } from "../providers/bedrock/credentials";
import { replyText } from "../providers/media-replies";
import type { UpstreamTarget } from "../../upstream/adapter";
import { type BatchLine, chatReplyFrom, chatRequestIn, epochSeconds, jsonAnswer, jsonlReply, lineModel, outputLine, parseBatchLines } from "./lines";
import { batchBucketOf, listedObjects, locationId, locationOf, objectUrl, type S3Location, s3Call, s3Uri } from "./s3-objects";
import { type BatchApi, type BatchCall, type BatchOrFileOperation, type BatchReply, isBatchReply, type SendUpstream } from "../../upstream/batch-api";

interface InvocationJob {
  jobArn: string;
  modelId?: string;
  status?: string;
  submitTime?: string;
  endTime?: string;
  inputDataConfig?: { s3InputDataConfig?: { s3Uri?: string } };
  outputDataConfig?: { s3OutputDataConfig?: { s3Uri?: string } };
  totalRecordCount?: number;
  successRecordCount?: number;
  errorRecordCount?: number;
}

type OutputRecord = { recordId?: string; modelOutput?: unknown; error?: { errorCode?: number | string; errorMessage?: string } };

const STATUS: Record<string, string> = {
  Submitted: "validating",
  Validating: "validating",
  Scheduled: "validating",
  InProgress: "in_progress",
  Completed: "completed",
  PartiallyCompleted: "completed",
  Failed: "failed",
  Stopping: "cancelling",
  Stopped: "cancelled",
  Expired: "expired",
};
const FINISHED = new Set(["Completed", "PartiallyCompleted"]);
const BEDROCK_ANTHROPIC_VERSION = "bedrock-2023-05-31";

const isAnthropic = (model: string) => model.includes("anthropic.");
const fromS3Uri = (uri: string | undefined) => (uri ? uri.replace(/^s3:\/\//, "") : null);
const failed = (reply: Awaited<ReturnType<SendUpstream>>): reply is BatchReply & ({ ok: false } | GatewayError) => reply instanceof GatewayError || !reply.ok;

function asOpenAIBatch(job: InvocationJob) {
  return {
    id: job.jobArn,
    object: "batch",
    endpoint: "/v1/chat/completions",
    errors: null,
    input_file_id: fromS3Uri(job.inputDataConfig?.s3InputDataConfig?.s3Uri),
    completion_window: "24h",
    status: STATUS[job.status ?? ""] ?? "validating",
    output_file_id: null,
    error_file_id: null,
    created_at: epochSeconds(job.submitTime),
    completed_at: FINISHED.has(job.status ?? "") ? epochSeconds(job.endTime) : null,
    request_counts: { total: job.totalRecordCount ?? 0, completed: job.successRecordCount ?? 0, failed: job.errorRecordCount ?? 0 },
    model: job.modelId,
    metadata: null,
  };
}

/** A line as a Bedrock batch record: Claude models get Anthropic's body for Bedrock; others take the line's body as their native one. */
function recordOf(line: BatchLine, call: BatchCall): string {
  const model = lineModel(line, call.target, call.provider);
  const { model: _model, ...native } = isAnthropic(model) ? { ...chatRequestIn("anthropic", line.body, model), anthropic_version: BEDROCK_ANTHROPIC_VERSION } : line.body;
  return JSON.stringify({ recordId: line.custom_id, modelInput: native });
}

function requireSigningCredentials(target: UpstreamTarget) {
  if (!credentialsOf(target)) throw badRequest("Bedrock batches read and write S3: the key needs bedrock_key_config.access_key and secret_key", "bedrock_key_config.access_key");
}

async function upload(call: BatchCall, send: SendUpstream): Promise<BatchReply> {
  const file = call.body.file as File;
  const purpose = String(call.body.purpose ?? "batch");
  const lines = purpose === "batch" ? parseBatchLines(await file.text(), "file") : undefined;
  const bytes = lines ? new TextEncoder().encode(`${lines.map((line) => recordOf(line, call)).join("\n")}\n`) : new Uint8Array(await file.arrayBuffer());
  const { bucket, prefix } = batchBucketOf(call.target);
  const model = lines?.[0] ? lineModel(lines[0], call.target, call.provider) : undefined;
  // The model a batch input is for is part of its key, so every listing of the file names it.
  const location = { bucket, key: [prefix, model, randomUUID(), file.name].filter(Boolean).join("/") };
  const put = await send(s3Call(objectUrl(call.target, location), "PUT", { headers: { "content-type": "application/jsonl" }, body: bytes }));
  if (failed(put)) return put;
  return jsonAnswer(fileObject(location, call.target, { bytes: bytes.byteLength, lastModified: new Date().toISOString() }));
}

/** A stored object as OpenAI's file object: `{prefix}/{model}/{id}/{name}` holds batch input for that model, `{prefix}/{id}/{name}` anything else. */
function fileObject(location: S3Location, target: UpstreamTarget, object: { bytes: number; lastModified: string | null }) {
  const { prefix } = batchBucketOf(target);
  const segments = (prefix && location.key.startsWith(`${prefix}/`) ? location.key.slice(prefix.length + 1) : location.key).split("/");
  const model = segments.length === 3 ? segments[0] : undefined;
  return { id: locationId(location), object: "file", bytes: object.bytes, created_at: epochSeconds(object.lastModified), filename: segments.at(-1), purpose: model ? "batch" : "user_data", status: "processed", ...(model ? { model } : {}) };
}

async function retrieveFile(call: BatchCall, send: SendUpstream): Promise<BatchReply> {
  const location = locationOf(String(call.body.id), "file_id");
  const head = await send(s3Call(objectUrl(call.target, location), "HEAD"));
  if (failed(head)) return head;
  return jsonAnswer(fileObject(location, call.target, { bytes: Number(head.headers.get("content-length") ?? 0), lastModified: head.headers.get("last-modified") }));
}

async function listFiles(call: BatchCall, send: SendUpstream): Promise<BatchReply> {
  const { bucket, prefix } = batchBucketOf(call.target);
  const query = new URLSearchParams({ "list-type": "2", "max-keys": String(call.body.limit ?? 100), ...(prefix ? { prefix: `${prefix}/` } : {}) });
  const listed = await send(s3Call(`${objectUrl(call.target, { bucket, key: "" })}?${query}`, "GET"));
  if (failed(listed) || !("body" in listed)) return listed;
  const data = listedObjects(listed.body).map((object) => fileObject({ bucket, key: object.key }, call.target, { bytes: object.size, lastModified: object.lastModified }));
  return jsonAnswer({ object: "list", data, has_more: false });
}

async function job(call: BatchCall, send: SendUpstream, jobArn: string): Promise<InvocationJob | BatchReply> {
  const found = await send({ url: `${controlPlaneOf(call.target)}/model-invocation-job/${encodeURIComponent(jobArn)}`, method: "GET", headers: bearerOrNone(call.target) });
  if (failed(found) || !("body" in found)) return found;
  return JSON.parse(found.body) as InvocationJob;
}


async function createJob(call: BatchCall, send: SendUpstream): Promise<BatchReply> {
  const model = call.target.model;
  if (!model || model === "*") throw badRequest("a Bedrock batch runs one model: name it in `model`, or upload the input file with purpose batch", "model");
  if (typeof call.body.input_file_id !== "string") throw badRequest("Bedrock batches read their requests from an uploaded file: send input_file_id", "input_file_id");
  const arn = keyConfigOf(call.target).arn;
  const roleArn = typeof call.body.role_arn === "string" ? call.body.role_arn : arn?.includes(":iam::") ? arn : undefined;
  if (!roleArn) throw badRequest("Bedrock batch jobs run as an IAM service role: send role_arn, or set the key's bedrock_key_config.arn to the role", "role_arn");
  const { bucket, prefix } = batchBucketOf(call.target);
  const body = {
    jobName: `gateway-${randomUUID().slice(0, 18)}`,
    roleArn,
    modelId: model,
    inputDataConfig: { s3InputDataConfig: { s3Uri: s3Uri(locationOf(call.body.input_file_id, "input_file_id")), s3InputFormat: "JSONL" } },
    outputDataConfig: { s3OutputDataConfig: { s3Uri: `s3://${[bucket, prefix, "output"].filter(Boolean).join("/")}/` } },
  };
  const created = await send({ url: `${controlPlaneOf(call.target)}/model-invocation-job`, headers: { ...bearerOrNone(call.target), "content-type": "application/json" }, body: JSON.stringify(body) });
  if (failed(created) || !("body" in created)) return created;
  const found = await job(call, send, (JSON.parse(created.body) as { jobArn: string }).jobArn);
  return isBatchReply(found) ? found : jsonAnswer(asOpenAIBatch(found));
}

/** Bedrock writes `{output uri}{job id}/{input file name}.out`, one record per line. */
async function results(call: BatchCall, send: SendUpstream): Promise<BatchReply> {
  const found = await job(call, send, String(call.body.id));
  if (isBatchReply(found)) return found;
  if (!FINISHED.has(found.status ?? "")) return new GatewayError({ status: 409, errorType: "caller_batch_not_finished", message: `batch '${found.jobArn}' has no results yet (status ${STATUS[found.status ?? ""] ?? found.status})` });
  const input = locationOf(fromS3Uri(found.inputDataConfig?.s3InputDataConfig?.s3Uri) ?? "", "input_file_id");
  const output = locationOf(`${fromS3Uri(found.outputDataConfig?.s3OutputDataConfig?.s3Uri)?.replace(/\/?$/, "/")}${found.jobArn.split("/").at(-1)}/${input.key.split("/").at(-1)}.out`, "output");
  const object = await send(s3Call(objectUrl(call.target, output), "GET"));
  if (failed(object)) return object;
  const model = found.modelId ?? "";
  const records = (await replyText(object)).split("\n").filter(Boolean).map((line) => JSON.parse(line) as OutputRecord);
  return jsonlReply(
    records.map((record, index) => {
      const customId = record.recordId ?? String(index);
      if (record.error || !record.modelOutput) return outputLine(index, customId, { error: { code: String(record.error?.errorCode ?? "error"), message: record.error?.errorMessage ?? "the record failed" } });
      return outputLine(index, customId, { body: isAnthropic(model) ? chatReplyFrom("anthropic", record.modelOutput, model) : record.modelOutput });
    }),
  );
}

const OPERATIONS: ReadonlySet<BatchOrFileOperation> = new Set(["file_upload", "file_list", "file_retrieve", "file_content", "file_delete", "batch_create", "batch_list", "batch_retrieve", "batch_cancel", "batch_results"]);

/**
 * Bedrock batch inference in OpenAI's shapes: files are S3 objects in the key's
 * batch_s3_config bucket (input lines converted to Bedrock records), batches are model
 * invocation jobs, results are read from the job's output object and converted back.
 */
export const bedrockBatches: BatchApi = {
  operations: OPERATIONS,
  async run(call, send) {
    if (call.operation.startsWith("file_") || call.operation === "batch_results") requireSigningCredentials(call.target);
    const control = controlPlaneOf(call.target);
    const id = encodeURIComponent(String(call.body.id));
    switch (call.operation) {
      case "file_upload":
        return upload(call, send);
      case "file_list":
        return listFiles(call, send);
      case "file_retrieve":
        return retrieveFile(call, send);
      case "file_content":
        return send(s3Call(objectUrl(call.target, locationOf(String(call.body.id), "file_id")), "GET"), { stream: true });
      case "file_delete": {
        const deleted = await send(s3Call(objectUrl(call.target, locationOf(String(call.body.id), "file_id")), "DELETE"));
        return failed(deleted) ? deleted : jsonAnswer({ id: call.body.id, object: "file", deleted: true });
      }
      case "batch_create":
        return createJob(call, send);
      case "batch_list": {
        const listed = await send({ url: `${control}/model-invocation-jobs?maxResults=${Number(call.body.limit ?? 20)}`, method: "GET", headers: bearerOrNone(call.target) });
        if (failed(listed) || !("body" in listed)) return listed;
        const summaries = (JSON.parse(listed.body) as { invocationJobSummaries?: InvocationJob[]; nextToken?: string }).invocationJobSummaries ?? [];
        return jsonAnswer({ object: "list", data: summaries.map(asOpenAIBatch), has_more: false });
      }
      case "batch_retrieve": {
        const found = await job(call, send, String(call.body.id));
        return isBatchReply(found) ? found : jsonAnswer(asOpenAIBatch(found));
      }
      case "batch_cancel": {
        const stopped = await send({ url: `${control}/model-invocation-job/${id}/stop`, headers: bearerOrNone(call.target) });
        if (failed(stopped)) return stopped;
        const found = await job(call, send, String(call.body.id));
        return isBatchReply(found) ? found : jsonAnswer(asOpenAIBatch(found));
      }
      default:
        return results(call, send);
    }
  },
};
