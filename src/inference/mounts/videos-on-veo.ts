import { badRequest, conflict, GatewayError, notFound } from "../../http/errors";
import { handleInference, type Inference } from "../handle";
import { fileIdInUri, operationNameParts, type VideoOperation, videoOperationFailed } from "../formats/genai/video-operation";
import { resolvedModelRef } from "../model-ref";
import type { ProviderObjectOperation } from "../../upstream/provider-objects";
import { type ForwardCall, keptObjectCalls, requestAt } from "./kept-objects";

/** What a video id the gateway made holds: the provider and the Veo operation making the video, and what the create asked for. */
interface VeoVideo {
  provider: string;
  /** `models/{model}/operations/{id}`. */
  operation: string;
  seconds: string;
  size: string;
  createdAt: number;
}

const ID_PREFIX = "video_veo_";
/** Veo makes this long a video, and this size, unless asked otherwise. */
const VEO_DEFAULTS = { seconds: "8", size: "1280x720" };
/** Google keeps a video it made for two days. */
const KEPT_FOR_SECONDS = 2 * 86_400;

const UNSUPPORTED: Partial<Record<ProviderObjectOperation, string>> = {
  video_delete: "a video Veo made is not deleted: Google removes it two days after making it",
  video_remix: "Veo does not remix videos",
};

const idOf = (video: VeoVideo) => ID_PREFIX + Buffer.from(JSON.stringify(video)).toString("base64url");

/** The video an id of the gateway's names; undefined for any other id (OpenAI's own). */
function videoOf(id: string): VeoVideo | undefined {
  if (!id.startsWith(ID_PREFIX)) return undefined;
  try {
    const video = JSON.parse(Buffer.from(id.slice(ID_PREFIX.length), "base64url").toString()) as Partial<VeoVideo>;
    if (typeof video.provider === "string" && typeof video.operation === "string" && operationNameParts(video.operation)) return video as VeoVideo;
  } catch {}
  throw notFound(`no video '${id}' is known here`);
}

/** The model and id of a video's operation, which `videoOf` checked. */
const operationParts = (operation: string) => operationNameParts(operation)!;

/** OpenAI's create (a multipart form) as Veo's request: the prompt and reference image as its instance, length and size as its parameters. */
async function veoRequestOf(form: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { prompt, seconds, size, input_reference: reference } = form;
  if (typeof prompt !== "string" || prompt.length === 0) throw badRequest("a video is made from a prompt", "prompt");
  const parameters: Record<string, unknown> = {};
  if (seconds !== undefined) {
    const duration = Number(seconds);
    if (!Number.isInteger(duration) || duration <= 0) throw badRequest(`seconds '${seconds}' is not a whole number of seconds`, "seconds");
    parameters.durationSeconds = duration;
  }
  if (size !== undefined) {
    const [width, height] = String(size).split("x").map(Number);
    if (!width || !height) throw badRequest(`size '${size}' is not {width}x{height}`, "size");
    parameters.aspectRatio = width >= height ? "16:9" : "9:16";
    parameters.resolution = Math.min(width, height) >= 1080 ? "1080p" : "720p";
  }
  const image = reference instanceof Blob ? { bytesBase64Encoded: Buffer.from(await reference.arrayBuffer()).toString("base64"), mimeType: reference.type || "image/png" } : undefined;
  return { instances: [{ prompt, ...(image ? { image } : {}) }], parameters };
}

/** The video as OpenAI's Videos API shows it, from the operation making it; a create's answer names its prompt and is queued. */
function videoObject(id: string, video: VeoVideo, operation: VideoOperation, created?: { prompt: string }) {
  const failed = videoOperationFailed(operation);
  const filtered = operation.response?.generateVideoResponse?.raiMediaFilteredReasons?.map(String).join("; ");
  return {
    id,
    object: "video",
    model: operationParts(video.operation).model,
    status: operation.done ? (failed ? "failed" : "completed") : created ? "queued" : "in_progress",
    progress: operation.done ? 100 : 0,
    created_at: video.createdAt,
    completed_at: operation.done ? Math.floor(Date.now() / 1000) : null,
    expires_at: video.createdAt + KEPT_FOR_SECONDS,
    error: failed ? { code: operation.error ? String(operation.error.code ?? "failed") : "content_filtered", message: operation.error ? String(operation.error.message ?? "") : filtered || "Veo made no video" } : null,
    prompt: created?.prompt ?? null,
    remixed_from_video_id: null,
    seconds: video.seconds,
    size: video.size,
  };
}

/**
 * OpenAI's Videos API (`videos.create`, `retrieve`, `downloadContent`) for a model Veo makes: the
 * create starts Veo's operation and answers a video whose id names it, the retrieve polls it, the
 * download fetches the video it made (from the Gemini API's files, or Vertex's answer). Calls on
 * other videos go on to `next` (OpenAI's Sora).
 */
export function videosOnVeo(inference: Inference, mountProvider: string | undefined, next: ForwardCall): ForwardCall {
  const onGoogle = keptObjectCalls(inference, "genai", mountProvider);

  const veoTarget = (model: unknown) => {
    const target = typeof model === "string" ? resolvedModelRef(model, inference.providers, mountProvider) : undefined;
    return target && inference.providers.get(target.provider)?.adapter.operations.has("video_generation") ? target : undefined;
  };

  const poll = async (video: VeoVideo, request: Request): Promise<VideoOperation | Response> => {
    const { model, id } = operationParts(video.operation);
    const reply = await onGoogle("gemini_operation_get", requestAt(request, "?"), { params: { model, id }, heldBy: { provider: video.provider, model } });
    return reply.ok ? ((await reply.json()) as VideoOperation) : reply;
  };

  const create = async (request: Request, form: Record<string, unknown>, target: { provider: string; model: string }) => {
    const body = await veoRequestOf(form);
    const reply = await handleInference(inference, { operation: "video_generation", format: "genai", body, model: `${target.provider}/${target.model}`, fallbacks: [], stream: false, request, mountProvider });
    if (!reply.ok) return reply;
    const operation = (await reply.json()) as VideoOperation;
    if (typeof operation.name !== "string") throw new GatewayError({ status: 502, errorType: "provider_bad_response", isGatewayError: false, message: "Veo answered the create without an operation" });
    const { durationSeconds } = body.parameters as { durationSeconds?: number };
    const video: VeoVideo = { provider: target.provider, operation: operation.name, seconds: durationSeconds ? String(durationSeconds) : VEO_DEFAULTS.seconds, size: typeof form.size === "string" ? form.size : VEO_DEFAULTS.size, createdAt: Math.floor(Date.now() / 1000) };
    return Response.json(videoObject(idOf(video), video, operation, { prompt: form.prompt as string }));
  };

  const retrieve = async (id: string, video: VeoVideo, request: Request) => {
    const operation = await poll(video, request);
    return operation instanceof Response ? operation : Response.json(videoObject(id, video, operation));
  };

  const download = async (id: string, video: VeoVideo, request: Request) => {
    const variant = new URL(request.url).searchParams.get("variant");
    if (variant && variant !== "video") throw badRequest(`Veo makes no ${variant} of a video`, "variant");
    const operation = await poll(video, request);
    if (operation instanceof Response) return operation;
    const made = operation.response?.generateVideoResponse?.generatedSamples?.[0]?.video;
    // Vertex answers the video's bytes inline, unless the request had it written to Cloud Storage.
    if (typeof made?.encodedVideo === "string") return new Response(Buffer.from(made.encodedVideo, "base64"), { headers: { "content-type": typeof made.encoding === "string" ? made.encoding : "video/mp4" } });
    const uri = typeof made?.uri === "string" ? made.uri : undefined;
    if (uri?.startsWith("gs://")) throw badRequest(`video '${id}' was written to ${uri}: read it from Cloud Storage`, "video_id");
    const file = fileIdInUri(uri);
    if (!file) throw conflict(operation.done ? `video '${id}' failed: there is nothing to download` : `video '${id}' is not finished yet`, "video_id");
    return onGoogle("gemini_file_download", requestAt(request, "?alt=media"), { params: { name: file }, heldBy: { provider: video.provider, model: operationParts(video.operation).model } });
  };

  return async (operation, request, forwarded = {}) => {
    const { params, json } = forwarded;
    if (operation === "video_create") {
      const target = veoTarget((json as { model?: unknown } | undefined)?.model);
      return target ? create(request, json as Record<string, unknown>, target) : next(operation, request, forwarded);
    }
    const id = params?.id;
    const video = id ? videoOf(id) : undefined;
    if (!id || !video) return next(operation, request, forwarded);
    if (operation === "video_retrieve") return retrieve(id, video, request);
    if (operation === "video_content") return download(id, video, request);
    throw badRequest(UNSUPPORTED[operation] ?? `${operation} is not offered for a video Veo makes`, "video_id", "caller_operation_unsupported");
  };
}
