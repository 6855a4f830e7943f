/**
 * Veo's operation in Vertex AI's shape and the Gemini API's, both ways: Vertex names it
 * `projects/…/publishers/google/models/{model}/operations/{id}` and answers the videos it made
 * inline (or in Cloud Storage when the request named a bucket), the Gemini API names it
 * `models/{model}/operations/{id}` and answers generated samples.
 */
import { operationNameParts, type VideoOperation } from "./video-operation";

type VertexVideo = { bytesBase64Encoded?: string; gcsUri?: string; mimeType?: string };
export type VertexOperation = {
  name?: string;
  done?: boolean;
  error?: VideoOperation["error"];
  response?: { videos?: VertexVideo[]; raiMediaFilteredCount?: number; raiMediaFilteredReasons?: string[] };
};

/** Vertex's operation name as the Gemini API writes one. */
const geminiOperationName = (name: string) => {
  const parts = operationNameParts(name);
  return parts ? `models/${parts.model}/operations/${parts.id}` : name;
};

/** A video made inline is the sample's bytes; one written to Cloud Storage, its `gs://` URI. */
const sampleOf = (video: VertexVideo) => ({ video: video.gcsUri ? { uri: video.gcsUri, encoding: video.mimeType } : { encodedVideo: video.bytesBase64Encoded, encoding: video.mimeType } });

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
