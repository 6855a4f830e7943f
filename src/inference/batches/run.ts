import { GatewayError } from "../../http/errors";
import { type BatchObjectKind, wrapId } from "../../upstream/batch-ids";
import type { BatchApi, BatchCall, BatchReply, SendUpstream } from "../../upstream/batch-api";

type Json = Record<string, unknown>;

/** Fields of OpenAI's file and batch objects that name a file. */
const FILE_ID_FIELDS = ["input_file_id", "output_file_id", "error_file_id"] as const;

/**
 * A file's id records the model its batch will run (when a provider runs one model per batch), so
 * the id of an uploaded input file and the `input_file_id` of its batch come out the same.
 */
function wrapObject(object: Json, kind: BatchObjectKind, provider: string, keyId: string | undefined): Json {
  const wrapped: Json = { ...object };
  const model = typeof object.model === "string" ? object.model : undefined;
  if (typeof object.id === "string") wrapped.id = wrapId(kind, { provider, keyId, id: object.id, model: kind === "file" ? model : undefined });
  for (const field of FILE_ID_FIELDS) {
    if (typeof object[field] === "string") wrapped[field] = wrapId("file", { provider, keyId, id: object[field] as string, model: field === "input_file_id" ? model : undefined });
  }
  return wrapped;
}

/** Every id in a file or batch object, or in a list of them, made a gateway id. */
function wrapIds(body: Json, kind: BatchObjectKind, provider: string, keyId: string | undefined): Json {
  if (body.object !== "list" || !Array.isArray(body.data)) return wrapObject(body, kind, provider, keyId);
  const data = (body.data as Json[]).map((item) => wrapObject(item, kind, provider, keyId));
  const cursor = (id: unknown) => (typeof id === "string" ? wrapId(kind, { provider, keyId, id }) : id);
  return { ...body, data, first_id: cursor(body.first_id), last_id: cursor(body.last_id) };
}

const unsupported = (call: BatchCall, provider: string) =>
  new GatewayError({ status: 400, errorType: "caller_unsupported_operation", message: `provider '${provider}' does not offer ${call.operation.replace("_", " ")}`, param: "provider" });

/** Runs one batch or file call on a provider's backend and hands out gateway ids in its reply. */
export async function runBatchCall(api: BatchApi, call: BatchCall, send: SendUpstream): Promise<BatchReply> {
  const provider = call.provider;
  if (!api.operations.has(call.operation)) return unsupported(call, provider);
  const reply = await api.run(call, send);
  if (reply instanceof GatewayError || !reply.ok || !("body" in reply) || call.operation === "batch_results" || call.operation === "file_content") return reply;
  const kind: BatchObjectKind = call.operation.startsWith("file_") ? "file" : "batch";
  const body = wrapIds(JSON.parse(reply.body) as Json, kind, provider, call.target.key?.id);
  return { ...reply, headers: new Headers({ "content-type": "application/json" }), body: JSON.stringify(body) };
}
