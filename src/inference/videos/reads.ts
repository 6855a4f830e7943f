import { GatewayError } from "../../http/errors";
import type { Inference } from "../handle";
import { keptObjectCalls } from "../mounts/kept-objects";
import type { VideoPoll } from "../../db/schema/types";

/** Who the gateway's own reads of videos are logged as made by. */
export const VIDEO_READER = "video-reader";

/**
 * Reads a video as a client would (Sora's retrieve, or a poll of Veo's operation), with the key
 * that made it, through the pipeline: governed, logged as the gateway's own call, and settled like
 * any read of the video, which is what ends its held charge. The answer itself is dropped; what the
 * caller learns is whether the provider still has the video.
 */
export function videoReader(inference: Inference) {
  const calls = { video_retrieve: keptObjectCalls(inference, "openai", undefined), gemini_operation_get: keptObjectCalls(inference, "genai", undefined) };
  return async (provider: string, { operation, params }: VideoPoll): Promise<boolean> => {
    // Tagged in its log's metadata, so the deployment's own reads can be told from its clients'.
    const request = new Request(`http://gateway.internal/${provider}/${operation}`, { headers: { "x-gw-metadata-caller": VIDEO_READER } });
    try {
      const response = await calls[operation](operation, request, { params, heldBy: { provider, model: "*" }, internalCaller: VIDEO_READER });
      await response.body?.cancel();
      return true;
    } catch (error) {
      // The provider's own 404; not the gateway's (a provider no longer configured), which a later sweep may get past.
      if (error instanceof GatewayError && error.status === 404 && !error.isGatewayError) return false;
      throw error;
    }
  };
}
