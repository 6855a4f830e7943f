import { badRequest } from "../../../http/errors";
import { isProviderObjectOperation, type Operation } from "../../../upstream/operations";
import { ANTHROPIC_OBJECT_OPERATIONS } from "../../../upstream/provider-objects";
import { anthropicBatchApi } from "../../batches/anthropic";
import { withoutContentType } from "../multipart";
import { providerObjectCall } from "../provider-object-call";
import type { ProviderAdapter, UpstreamTarget } from "../../../upstream/adapter";

const DEFAULT_VERSION = "2023-06-01";

const PATHS: Partial<Record<Operation, string>> = {
  chat: "/messages",
  count_tokens: "/messages/count_tokens",
  text_completion: "/complete",
  invoke: "/messages",
};

const SAFE_SUB_PATH = /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/;

/** Extended endpoints (`batches`, ...) live under `/messages/{endpoint}`. */
function pathOf(operation: Operation, endpoint: string | undefined): string {
  const base = PATHS[operation]!;
  if (operation !== "invoke") return base;
  const subPath = endpoint ?? "";
  if (!SAFE_SUB_PATH.test(subPath)) throw badRequest(`'${subPath}' is not a messages endpoint`, "path", "caller_invalid_path");
  return `${base}/${subPath}`;
}

/** Betas the operator configures and betas the client asks for both apply. */
function mergedBetas(...lists: Array<string | null | undefined>): string | undefined {
  const betas = new Set(lists.flatMap((list) => (list ?? "").split(",")).map((beta) => beta.trim()).filter(Boolean));
  return betas.size > 0 ? [...betas].join(",") : undefined;
}

function headersFor(target: UpstreamTarget): Record<string, string> {
  const client = target.clientHeaders;
  const extra = target.network.extra_headers ?? {};
  const headers: Record<string, string> = { "anthropic-version": client.get("anthropic-version") ?? DEFAULT_VERSION, ...extra, "content-type": "application/json" };
  const betas = mergedBetas(extra["anthropic-beta"], client.get("anthropic-beta"));
  if (betas) headers["anthropic-beta"] = betas;
  if (target.key?.secret) headers["x-api-key"] = target.key.secret;
  return headers;
}

const baseOf = (target: UpstreamTarget) => {
  if (!target.baseUrl) throw new Error("provider has no base_url");
  return target.baseUrl.replace(/\/+$/, "");
};

const anthropicBatches = anthropicBatchApi({ baseOf, headersOf: headersFor });

/** Anthropic's API: `x-api-key`, `anthropic-version` and `anthropic-beta` headers, paths under `{base}/messages`; the batches and files it keeps under `{base}`. */
export const anthropic: ProviderAdapter = {
  format: "anthropic",
  operations: new Set<Operation>([...(Object.keys(PATHS) as Operation[]), ...anthropicBatches.operations, ...ANTHROPIC_OBJECT_OPERATIONS]),
  keyOptional: false,
  listModels: {
    call: (target) => ({ url: `${baseOf(target)}/models?limit=1000`, method: "GET", headers: withoutContentType(headersFor(target)) }),
    ids: (body) => ((body as { data?: Array<{ id?: unknown }> }).data ?? []).map((model) => model.id).filter((id): id is string => typeof id === "string"),
  },
  batches: anthropicBatches,
  buildCall(operation, target, body) {
    if (isProviderObjectOperation(operation)) return providerObjectCall(baseOf(target), operation, body, headersFor(target));
    const url = `${baseOf(target)}${pathOf(operation, target.endpoint)}`;
    // Batch bodies name their models per request; only a top-level model is rewritten.
    const sent = "model" in body || operation !== "invoke" ? { ...body, model: target.model } : body;
    return { url, headers: headersFor(target), body: JSON.stringify(sent) };
  },
};
