/**
 * Veo on Vertex AI, in the Gemini API's shapes, so a client polls and reads a video the same way on
 * either: the operation Vertex names `projects/…/publishers/google/models/{model}/operations/{id}`
 * is named `models/{model}/operations/{id}`; its poll, a GET on that name, is Vertex's
 * `:fetchPredictOperation`; the videos it made, inline in Vertex's answer (or in Cloud Storage
 * when the request named a bucket), are the Gemini API's generated samples. A client in Vertex AI
 * mode gets Vertex's shape back (`vertexOperationOf`), whichever provider made the video.
 */
import { operationNameParts, type VideoOperation } from "../../formats/genai/video-operation";
import type { ProviderObjectBody } from "../../provider-objects";

type VertexVideo = { bytesBase64Encoded?: string; gcsUri?: string; mimeType?: string };
type VertexOperation = {
  name?: string;
  done?: boolean;
  error?: VideoOperation["error"];
  response?: { videos?: VertexVideo[]; raiMediaFilteredCount?: number; raiMediaFilteredReasons?: string[] };
};

/** Vertex's operation name as the Gemini API writes one. */
export const geminiOperationName = (name: string) => {
  const parts = operationNameParts(name);
  return parts ? `models/${parts.model}/operations/${parts.id}` : name;
};

/** The model and operation a poll's path (`/v1beta/models/{model}/operations/{id}`) names. */
export const polledOperation = (body: Record<string, unknown>) => operationNameParts(decodeURIComponent((body as ProviderObjectBody).path));

/** A video made inline is the sample's bytes; one written to Cloud Storage, its `gs://` URI. */
const sampleOf = (video: VertexVideo) => ({ video: video.gcsUri ? { uri: video.gcsUri, encoding: video.mimeType } : { encodedVideo: video.bytesBase64Encoded, encoding: video.mimeType } });

/** The Gemini API's video as Vertex's: inline bytes, or a URI (Cloud Storage's, or the Gemini API's download URI). */
const vertexVideoOf = (video: { uri?: unknown; encodedVideo?: unknown; encoding?: unknown } = {}): VertexVideo => ({
  ...(typeof video.encodedVideo === "string" ? { bytesBase64Encoded: video.encodedVideo } : typeof video.uri === "string" ? { gcsUri: video.uri } : {}),
  ...(typeof video.encoding === "string" ? { mimeType: video.encoding } : {}),
});

/** The Gemini API's operation as Vertex's, for a client in Vertex AI mode: `geminiOperationOf` undone, the name kept. */
export function vertexOperationOf(operation: VideoOperation): VertexOperation {
  const { response, ...rest } = operation;
  const made = response?.generateVideoResponse;
  if (!made) return rest;
  const filtered = made.raiMediaFilteredCount ? { raiMediaFilteredCount: made.raiMediaFilteredCount, raiMediaFilteredReasons: made.raiMediaFilteredReasons?.map(String) } : {};
  return { ...rest, response: { videos: (made.generatedSamples ?? []).map((sample) => vertexVideoOf(sample.video)), ...filtered } };
}

/** Vertex's operation (a create's answer, or a poll's) as the Gemini API's. */
export function geminiOperationOf(operation: VertexOperation): VideoOperation {
  const { name, response, ...rest } = operation;
  return {
    ...rest,
    ...(name ? { name: geminiOperationName(name) } : {}),
    ...(response
      ? { response: { generateVideoResponse: { generatedSamples: (response.videos ?? []).map(sampleOf), ...(response.raiMediaFilteredCount ? { raiMediaFilteredCount: response.raiMediaFilteredCount, raiMediaFilteredReasons: response.raiMediaFilteredReasons } : {}) } } }
      : {}),
  };
}
