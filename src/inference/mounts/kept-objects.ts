import { type AnyElysia, t } from "elysia";
import { badRequest, notFound } from "../../http/errors";
import { upstreamFileId } from "../../upstream/batch-ids";
import { handleInference, type Inference } from "../handle";
import { UPLOAD_SESSION_PARAM } from "../kept-objects/object-keys";
import type { WireFormat } from "../../upstream/operations";
import { PROVIDER_OBJECT_CALLS, type ProviderObjectBody, type ProviderObjectCall, type ProviderObjectOperation, providerObjectPath } from "../../upstream/provider-objects";
import { pathParams } from "./path-params";

/** A call's JSON body: any object. */
export const JsonObject = t.Object({}, { additionalProperties: true });

/** The provider whose API an object's format is: the one asked among several that keep such objects. */
const HOME: Partial<Record<WireFormat, string>> = { openai: "openai", anthropic: "anthropic", genai: "gemini" };

/**
 * The provider that keeps an object the gateway did not: the one named (`x-gw-provider`, or the
 * `provider` query parameter), the mount's, else the only one whose API has the call, or the
 * format's own provider (`openai`, `anthropic`) among several. Undefined when no provider has it.
 */
function keeperOf(inference: Inference, request: Request, url: URL, mountProvider: string | undefined, operation: ProviderObjectOperation, format: WireFormat): string | undefined {
  const named = request.headers.get("x-gw-provider") ?? url.searchParams.get("provider") ?? mountProvider;
  if (named) return named;
  const keepers = inference.providers.list().filter((provider) => provider.adapter.operations.has(operation));
  if (keepers.length <= 1) return keepers[0]?.name;
  if (keepers.some((provider) => provider.name === HOME[format])) return HOME[format];
  throw badRequest("several providers keep such objects: name one with the x-gw-provider header or the `provider` query parameter", "provider", "caller_provider_required");
}

export interface Forwarded {
  params?: Record<string, string>;
  json?: unknown;
  /** The raw bytes of an upload, in place of `json`. */
  bytes?: ArrayBuffer;
  /** The provider and model that hold it, when the gateway knows them (a background response). */
  heldBy?: { provider: string; model: string };
  countsUsage?: () => boolean;
  /** The gateway component making the call on the deployment's behalf, for a call no client made. */
  internalCaller?: string;
}

export type ForwardCall = (operation: ProviderObjectOperation, request: Request, forwarded?: Forwarded) => Promise<Response>;

/**
 * The client's request as a GET with `search` for a call it leads to (a poll or a download), its
 * headers and cancellation kept: the forwarded call's query string is the request's.
 */
export const requestAt = (request: Request, search: string) => new Request(new URL(search, request.url).href, { headers: request.headers, signal: request.signal });

/**
 * Calls on objects a provider keeps (responses, conversations, containers, message batches,
 * files), each sent to the provider that keeps the object through the inference pipeline like
 * every call: governed, logged, never billed unless `countsUsage` says so.
 */
export function keptObjectCalls(inference: Inference, format: WireFormat, mountProvider: string | undefined): ForwardCall {
  return async (operation, request, { params = {}, json, bytes, heldBy, countsUsage, internalCaller } = {}) => {
    const url = new URL(request.url);
    const provider = heldBy?.provider ?? keeperOf(inference, request, url, mountProvider, operation, format);
    if (!provider) throw notFound(`no provider configured here answers ${PROVIDER_OBJECT_CALLS[operation].requestType}`);
    // The object goes back to the account that has it: the key that made it, unless the client pinned one.
    const objectId = params.id ?? params.name ?? (PROVIDER_OBJECT_CALLS[operation].inUploadSession ? url.searchParams.get(UPLOAD_SESSION_PARAM) : undefined);
    const pinnedKeyId = objectId && !request.headers.has("x-gw-api-key-id") ? await inference.objectKeys?.keyOf(provider, upstreamFileId(objectId)) : undefined;
    url.searchParams.delete("provider");
    const contentType = bytes ? (request.headers.get("content-type") ?? undefined) : undefined;
    const body: ProviderObjectBody = { path: providerObjectPath(operation, params), search: url.search, json, bytes, contentType };
    return handleInference(inference, {
      operation,
      format,
      body,
      model: `${provider}/${heldBy?.model ?? "*"}`,
      fallbacks: [],
      // A background response is read back as a stream with `?stream=true`; a file's bytes pass as they come.
      stream: PROVIDER_OBJECT_CALLS[operation].streams === true || (operation === "response_retrieve" && url.searchParams.get("stream") === "true"),
      request,
      mountProvider,
      // Reading an object back spends nothing, though a response repeats the usage it was billed for; making a video spends.
      countsUsage: countsUsage ?? (PROVIDER_OBJECT_CALLS[operation].bills ? undefined : () => false),
      pinnedKeyId,
      internalCaller,
    });
  };
}

/** The schema of the path's `:name` segments, each a non-empty string; none for a path without any. */
function paramsOf(path: string) {
  const names = [...path.matchAll(/:(\w+)/g)].map(([, name]) => name!);
  return names.length > 0 ? { params: pathParams(Object.fromEntries(names.map((name) => [name, t.String({ minLength: 1 })]))) } : {};
}

/** How a route takes the call's body: a JSON object (or form), required or not, or bytes left unparsed. */
function bodyOptionsOf(body: ProviderObjectCall["body"]) {
  if (body === "bytes") return { parse: "none" as const };
  return body ? { body: body === "optional" ? t.Optional(JsonObject) : JsonObject } : {};
}

/**
 * A route per call, at the call's own path, passing the client's ids, query and body on as they
 * came (bytes byte for byte, with their content type); `answer` may rework the reply.
 */
export function forwardedRoutes<Routes extends AnyElysia>(routes: Routes, operations: readonly ProviderObjectOperation[], forward: ForwardCall, answer?: (operation: ProviderObjectOperation, reply: Response, request: Request) => Promise<Response>): Routes {
  for (const operation of operations) {
    const { method, path, body } = PROVIDER_OBJECT_CALLS[operation];
    routes.route(
      method,
      path,
      async (context) => {
        const { params, body: json, request } = context as { params?: Record<string, string>; body?: unknown; request: Request };
        const forwarded = body === "bytes" ? { params, bytes: await request.arrayBuffer() } : { params, json };
        const reply = await forward(operation, request, forwarded);
        return answer ? answer(operation, reply, request) : reply;
      },
      { ...paramsOf(path), ...bodyOptionsOf(body) },
    );
  }
  return routes;
}
