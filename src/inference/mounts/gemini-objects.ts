import { Elysia } from "elysia";
import { badRequest, notFound } from "../../http/errors";
import { operationNameParts } from "../formats/genai/video-operation";
import { vertexOperationOf } from "../formats/genai/vertex-video-operation";
import type { Inference } from "../handle";
import { modelInPath } from "../model-ref";
import { GEMINI_OBJECT_OPERATIONS, type ProviderObjectOperation } from "../../upstream/provider-objects";
import { rewritten, withProviderInName } from "./genai-replies";
import { forwardedRoutes, keptObjectCalls, requestAt } from "./kept-objects";
import { prefixAsRequested } from "./path-params";

const UPLOAD_URL = "x-goog-upload-url";

/**
 * Calls routed by hand, below: the two steps of an upload share one route (the step is in
 * `x-goog-upload-command`), and so do a file's metadata and its bytes (`files/{name}:download`);
 * an operation's name may say which provider makes it.
 */
const ROUTED_HERE: ReadonlySet<ProviderObjectOperation> = new Set(["gemini_file_upload_start", "gemini_file_upload_bytes", "gemini_file_get", "gemini_file_download", "gemini_operation_get"]);
const DOWNLOAD = ":download";
/** How `@google/genai` in Vertex AI mode polls a video's operation: a POST naming it, on its model. */
const FETCH_PREDICT_OPERATION = ":fetchPredictOperation";

/** The start call's reply, its upload URL on the gateway's route instead of the provider's host: the bytes must come through the gateway too. */
function withGatewayUploadUrl(reply: Response, gatewayRoot: string): Response {
  const upstream = reply.headers.get(UPLOAD_URL);
  if (!upstream) return reply;
  const { pathname, search } = new URL(upstream);
  const headers = new Headers(reply.headers);
  headers.set(UPLOAD_URL, `${gatewayRoot}${pathname}${search}`);
  return new Response(reply.body, { status: reply.status, headers });
}

async function jsonOf(request: Request): Promise<unknown> {
  try {
    return JSON.parse(await request.text());
  } catch {
    throw badRequest("body: the start of an upload is a JSON object", "body");
  }
}

type ModelCall = { params: Record<"*", string>; body: unknown; request: Request };

/** Whether a model path (`{model}:{method}`) is Vertex AI mode's poll of a video's operation. */
export const isFetchPredictOperation = (path: string) => path.endsWith(FETCH_PREDICT_OPERATION);

/**
 * How a Veo operation is polled: by the Gemini API's GET of its name, and by Vertex AI mode's
 * `POST {model}:fetchPredictOperation` naming it, answered in Vertex's shape. Either reaches the
 * provider that makes the video.
 */
export function videoOperationPolls(inference: Inference, mountProvider: string | undefined) {
  const forward = keptObjectCalls(inference, "genai", mountProvider);

  // The genai mount names a Veo operation `models/{provider}%2F{model}/operations/{id}`; Google's own names, by the model alone, reach the keeper.
  const poll = async (model: string, id: string, request: Request) => {
    const named = modelInPath(model);
    const slash = named.indexOf("/");
    const heldBy = slash > 0 ? { provider: named.slice(0, slash), model: named.slice(slash + 1) } : undefined;
    return withProviderInName(await forward("gemini_operation_get", request, { params: { model: heldBy?.model ?? named, id }, heldBy }));
  };

  const fetchPredictOperation = async ({ params, body, request }: ModelCall) => {
    if (!isFetchPredictOperation(params["*"])) throw notFound(`no method at models/${params["*"]}; a video's operation is polled with {model}${FETCH_PREDICT_OPERATION}`, "caller_route_not_found");
    const name = (body as { operationName?: unknown } | undefined)?.operationName;
    const operation = typeof name === "string" ? operationNameParts(name) : undefined;
    if (!operation) throw badRequest("operationName: the operation to poll, named as generateVideos answered it (models/{model}/operations/{id})", "operationName");
    // The poll is a GET upstream, whatever the client's method.
    return rewritten(await poll(operation.model, operation.id, requestAt(request, "?")), vertexOperationOf);
  };

  return { forward, poll, fetchPredictOperation };
}

/**
 * The files the Gemini API keeps, under `{prefix}` as `@google/genai` calls them: `files.upload`
 * (the resumable protocol: a start call, then the bytes at the URL it answered, which names the
 * gateway), `files.get`, `files.list`, `files.delete`, `files.download` (a Veo video: the SDK reads
 * the file's id from Google's URI and fetches it here); the operations Veo makes videos in
 * (`operations.getVideosOperation`, also as Vertex AI mode's `:fetchPredictOperation`, but at
 * `/v1/models/*`, which the mount shares with the Gemini API's methods); and `caches.*`, the
 * cached contents a prompt names in `cachedContent`. Each call reaches the provider that keeps them.
 */
export function geminiObjectRoutes(prefix: string, { forward, poll, fetchPredictOperation }: ReturnType<typeof videoOperationPolls>) {
  // Used by the mount, whose prefix its routes take; the prefix here names the gateway's upload URL.
  const routes = new Elysia()
    .post(
      "/upload/v1beta/files",
      async ({ request }) => {
        const starts = request.headers.get("x-goog-upload-command")?.includes("start") ?? false;
        if (!starts) return forward("gemini_file_upload_bytes", request, { bytes: await request.arrayBuffer() });
        const reply = await forward("gemini_file_upload_start", request, { json: await jsonOf(request) });
        return withGatewayUploadUrl(reply, prefixAsRequested(prefix, request));
      },
      { parse: "none" },
    )
    .get("/v1beta/files/:name", ({ params: { name }, request }) =>
      name.endsWith(DOWNLOAD) ? forward("gemini_file_download", request, { params: { name: name.slice(0, -DOWNLOAD.length) } }) : forward("gemini_file_get", request, { params: { name } }),
    )
    .get("/v1beta/models/:model/operations/:id", ({ params, request }) => poll(params.model, params.id, request))
    // Vertex AI mode, in express mode (no project) and with the client's project and location.
    .post("/v1beta1/models/*", fetchPredictOperation);
  for (const version of ["v1beta1", "v1"]) routes.post(`/${version}/projects/:project/locations/:location/models/*`, fetchPredictOperation);
  return forwardedRoutes(
    routes,
    GEMINI_OBJECT_OPERATIONS.filter((operation) => !ROUTED_HERE.has(operation)),
    forward,
  );
}
