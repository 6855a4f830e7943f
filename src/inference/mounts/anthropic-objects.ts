import { Elysia } from "elysia";
import type { Inference } from "../handle";
import { ANTHROPIC_OBJECT_OPERATIONS, type ProviderObjectOperation } from "../../upstream/provider-objects";
import { forwardedRoutes, keptObjectCalls } from "./kept-objects";
import { prefixAsRequested } from "./path-params";

type Batch = { id?: unknown; results_url?: unknown };

/** Calls whose reply holds message batches, each with the URL of its results. */
const BATCH_REPLIES: ReadonlySet<ProviderObjectOperation> = new Set(["message_batch_retrieve", "message_batch_list", "message_batch_cancel"]);

/**
 * The reply with each batch's `results_url` on the gateway's route instead of the provider's: the
 * SDK fetches that URL as given, and the provider's would bypass the gateway and its keys.
 */
async function withGatewayResultsUrls(reply: Response, apiRoot: string): Promise<Response> {
  if (!reply.ok || !reply.headers.get("content-type")?.includes("json")) return reply;
  const body = (await reply.json()) as Batch & { data?: Batch[] };
  for (const batch of Array.isArray(body.data) ? body.data : [body]) {
    if (typeof batch.results_url === "string" && typeof batch.id === "string") batch.results_url = `${apiRoot}/messages/batches/${encodeURIComponent(batch.id)}/results`;
  }
  const headers = new Headers(reply.headers);
  headers.delete("content-length");
  return new Response(JSON.stringify(body), { status: reply.status, headers });
}

/**
 * Message batches and files Anthropic keeps, under `{prefix}/v1`: batches are created through the
 * messages wildcard (`POST /v1/messages/batches`) and read, cancelled, deleted and their results
 * fetched here; files are the files beta's. Each call reaches the provider that keeps the object.
 */
export function anthropicObjectRoutes(prefix: string, inference: Inference, mountProvider: string | undefined) {
  const forward = keptObjectCalls(inference, "anthropic", mountProvider);
  return forwardedRoutes(new Elysia({ prefix: `${prefix}/v1` }), ANTHROPIC_OBJECT_OPERATIONS, forward, (operation, reply, request) =>
    BATCH_REPLIES.has(operation) ? withGatewayResultsUrls(reply, `${prefixAsRequested(prefix, request)}/v1`) : Promise.resolve(reply),
  );
}
