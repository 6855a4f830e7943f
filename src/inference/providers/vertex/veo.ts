/**
 * Veo on Vertex AI, in the Gemini API's shapes, so a client polls and reads a video the same way on
 * either: the operation Vertex names `projects/…/publishers/google/models/{model}/operations/{id}`
 * is named `models/{model}/operations/{id}`; its poll, a GET on that name, is Vertex's
 * `:fetchPredictOperation`; the videos it made, inline in Vertex's answer (or in Cloud Storage
 * when the request named a bucket), are the Gemini API's generated samples.
 */
import type { ProviderObjectBody } from "../../provider-objects";

type VertexVideo = { bytesBase64Encoded?: string; gcsUri?: string; mimeType?: string };
type VertexOperation = {
  name?: string;
  done?: boolean;
  error?: unknown;
  response?: { videos?: VertexVideo[]; raiMediaFilteredCount?: number; raiMediaFilteredReasons?: string[] };
};

const OPERATION_NAME = /(?:^|\/)models\/([^/]+)\/operations\/([^/]+)$/;

/** Vertex's operation name as the Gemini API writes one. */
export const geminiOperationName = (name: string) => {
  const match = OPERATION_NAME.exec(name);
  return match ? `models/${match[1]}/operations/${match[2]}` : name;
};

/** The model and operation a poll's path (`/v1beta/models/{model}/operations/{id}`) names. */
export function polledOperation(body: Record<string, unknown>): { model: string; id: string } | undefined {
  const match = OPERATION_NAME.exec(decodeURIComponent((body as ProviderObjectBody).path));
  return match ? { model: match[1]!, id: match[2]! } : undefined;
}

/** A video made inline is the sample's bytes; one written to Cloud Storage, its `gs://` URI. */
const sampleOf = (video: VertexVideo) => ({ video: video.gcsUri ? { uri: video.gcsUri, encoding: video.mimeType } : { encodedVideo: video.bytesBase64Encoded, encoding: video.mimeType } });

/** Vertex's operation (a create's answer, or a poll's) as the Gemini API's. */
export function geminiOperationOf(operation: VertexOperation): Record<string, unknown> {
  const { name, response, ...rest } = operation;
  return {
    ...rest,
    ...(name ? { name: geminiOperationName(name) } : {}),
    ...(response
      ? { response: { generateVideoResponse: { generatedSamples: (response.videos ?? []).map(sampleOf), ...(response.raiMediaFilteredCount ? { raiMediaFilteredCount: response.raiMediaFilteredCount, raiMediaFilteredReasons: response.raiMediaFilteredReasons } : {}) } } }
      : {}),
  };
}
