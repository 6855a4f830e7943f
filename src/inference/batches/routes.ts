import { Elysia, t } from "elysia";
import { badRequest } from "../../http/errors";
import { handleInference, type Inference } from "../handle";
import { pathParams } from "../mounts/path-params";
import type { BatchOrFileOperation } from "../../upstream/batch-api";
import { unwrapId } from "../../upstream/batch-ids";

const open = { additionalProperties: true } as const;
const FileParams = pathParams({ file_id: t.String({ minLength: 1 }) });
const BatchParams = pathParams({ batch_id: t.String({ minLength: 1 }) });
const ListQuery = t.Object({ provider: t.Optional(t.String()), limit: t.Optional(t.String()), after: t.Optional(t.String()), purpose: t.Optional(t.String()), order: t.Optional(t.String()) });
const UploadForm = t.Object({ file: t.File(), purpose: t.String({ minLength: 1 }), provider: t.Optional(t.String()) }, open);
const BatchLine = t.Object({ custom_id: t.String({ minLength: 1 }), body: t.Record(t.String(), t.Unknown()) }, open);
const CreateBody = t.Object(
  {
    input_file_id: t.Optional(t.String({ minLength: 1 })),
    /** For providers that take a batch's requests inline (Anthropic), as OpenAI batch lines. */
    requests: t.Optional(t.Array(BatchLine, { minItems: 1 })),
    endpoint: t.Optional(t.String()),
    completion_window: t.Optional(t.String()),
    /** The model a batch runs, for providers that run one model per batch (Gemini, Bedrock); else from the file. */
    model: t.Optional(t.String({ minLength: 1 })),
    provider: t.Optional(t.String()),
  },
  open,
);

/** What a batch or file call names: a provider (perhaps inside a gateway id), a key, a model, the upstream ids. */
interface Routed {
  provider?: string;
  keyId?: string;
  model?: string;
  body: Record<string, unknown>;
}

/** The provider a call without an id goes to: named, else the only one with keys for the batch API. */
function providerOf(inference: Inference, named: string | undefined, mountProvider: string | undefined): string {
  if (named) return named;
  if (mountProvider) return mountProvider;
  const withBatchKeys = inference.providers.list().filter((provider) => provider.keys.some((key) => key.enabled && key.useForBatchApi));
  if (withBatchKeys.length === 1) return withBatchKeys[0]!.name;
  throw badRequest("name the provider: the `provider` field or query parameter, or the x-gw-provider header", "provider", "caller_provider_required");
}

/** A gateway id carries its provider, key and model; any other id is the named provider's own. */
function fromId(raw: string, field: string, routed: Routed): Routed {
  const ref = unwrapId(raw);
  if (!ref) return { ...routed, body: { ...routed.body, [field]: raw } };
  if (routed.provider && routed.provider !== ref.provider) throw badRequest(`${field} belongs to provider '${ref.provider}', not '${routed.provider}'`, field);
  return { provider: ref.provider, keyId: ref.keyId, model: routed.model ?? ref.model, body: { ...routed.body, [field]: ref.id } };
}

/** `provider/model` names the provider too; the model is then the part after it. */
function withModel(routed: Routed, model: string | undefined, inference: Inference): Routed {
  if (!model) return routed;
  const slash = model.indexOf("/");
  if (slash > 0 && inference.providers.get(model.slice(0, slash))) return { ...routed, provider: routed.provider ?? model.slice(0, slash), model: model.slice(slash + 1) };
  return { ...routed, model };
}

/**
 * /v1/files and /v1/batches (with `/results`), on every provider that runs batches, with the
 * keys marked use_for_batch_api. Files and batches get gateway ids that lead back to the
 * provider and key that hold them; each call runs through the inference pipeline (virtual
 * keys, governance, logs) like any other.
 */
export function batchRoutes(inference: Inference, mountProvider?: string) {
  const run = (operation: BatchOrFileOperation, request: Request, routed: Routed) => {
    const { provider: _provider, ...body } = routed.body;
    const named = routed.provider ?? (typeof routed.body.provider === "string" ? routed.body.provider : undefined) ?? request.headers.get("x-gw-provider") ?? undefined;
    const provider = providerOf(inference, named, mountProvider);
    return handleInference(inference, { operation, format: "openai", body, model: `${provider}/${routed.model ?? "*"}`, fallbacks: [], stream: false, request, pinnedKeyId: routed.keyId });
  };
  const onFile = (operation: BatchOrFileOperation) => ({ params, request }: { params: { file_id: string }; request: Request }) => run(operation, request, fromId(params.file_id, "id", { body: {} }));
  const onBatch = (operation: BatchOrFileOperation) => ({ params, request }: { params: { batch_id: string }; request: Request }) => run(operation, request, fromId(params.batch_id, "id", { body: {} }));
  const list = (operation: BatchOrFileOperation) => ({ query, request }: { query: Record<string, string | undefined>; request: Request }) =>
    run(operation, request, query.after ? fromId(query.after, "after", { body: query }) : { body: query });

  return new Elysia()
    .post("/files", ({ body, request }) => run("file_upload", request, { body }), { body: UploadForm })
    .get("/files", list("file_list"), { query: ListQuery })
    .get("/files/:file_id", onFile("file_retrieve"), { params: FileParams })
    .get("/files/:file_id/content", onFile("file_content"), { params: FileParams })
    .delete("/files/:file_id", onFile("file_delete"), { params: FileParams })
    .post(
      "/batches",
      ({ body, request }) => {
        const { model, input_file_id: inputFile, ...rest } = body;
        if (!inputFile && !rest.requests) throw badRequest("a batch needs input_file_id, or its requests inline", "input_file_id");
        const named = withModel({ body: rest }, model, inference);
        return run("batch_create", request, inputFile ? fromId(inputFile, "input_file_id", named) : named);
      },
      { body: CreateBody },
    )
    .get("/batches", list("batch_list"), { query: ListQuery })
    .get("/batches/:batch_id", onBatch("batch_retrieve"), { params: BatchParams })
    .post("/batches/:batch_id/cancel", onBatch("batch_cancel"), { params: BatchParams })
    .get("/batches/:batch_id/results", onBatch("batch_results"), { params: BatchParams });
}
