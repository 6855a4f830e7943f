import { imageCount } from "../../formats/genai/gemini-images";
import { joinImageReplies } from "../gemini";
import { GatewayError } from "../../../http/errors";
import type { Operation } from "../../../upstream/operations";
import { imagesResponse, jsonReply, replyJson } from "../media-replies";
import { multipartBody } from "../multipart";
import { bearerHeaders, requireBaseUrl } from "../openai-compatible";
import type { ProviderAdapter } from "../../../upstream/adapter";

/** The aspect ratios Stable Image takes; OpenAI's `size` picks the nearest. */
const ASPECT_RATIOS = ["21:9", "16:9", "3:2", "5:4", "1:1", "4:5", "2:3", "9:16", "9:21"] as const;
const ratioOf = (ratio: string) => {
  const [width, height] = ratio.split(":").map(Number);
  return width! / height!;
};

export function nearestAspectRatio(size: unknown): string | undefined {
  const match = typeof size === "string" ? /^(\d+)x(\d+)$/.exec(size) : null;
  if (!match) return undefined;
  const wanted = Math.log(Number(match[1]) / Number(match[2]));
  return ASPECT_RATIOS.reduce((best, ratio) => (Math.abs(Math.log(ratioOf(ratio)) - wanted) < Math.abs(Math.log(ratioOf(best)) - wanted) ? ratio : best));
}

/** `ultra` and `core` are endpoints of their own; every other model (`sd3.5-large`, ...) is a `model` of the sd3 endpoint. */
function endpointOf(model: string): { path: string; model?: string } {
  const service = model.replace(/^stable-image-/, "");
  if (service === "ultra" || service === "core") return { path: service };
  return { path: "sd3", model };
}

interface StableImage {
  image?: string;
  finish_reason?: string;
  seed?: number;
}

const filtered = () => new GatewayError({ status: 400, errorType: "provider_content_filtered", isGatewayError: false, message: "Stability filtered the image out (finish_reason CONTENT_FILTERED)" });

/**
 * Stability AI's Stable Image generation (`{base}/stable-image/generate/{ultra|core|sd3}`): OpenAI's
 * image request as its multipart form, answered as JSON with the image in base64, one image a call
 * (`n` makes as many calls). The key travels as bearer.
 */
export const stability: ProviderAdapter = {
  format: "openai",
  operations: new Set<Operation>(["image_generation"]),
  keyOptional: false,
  buildCall(_operation, target, body) {
    const endpoint = endpointOf(target.model);
    const form = multipartBody({
      prompt: body.prompt,
      model: endpoint.model,
      negative_prompt: body.negative_prompt,
      aspect_ratio: body.aspect_ratio ?? nearestAspectRatio(body.size),
      seed: body.seed,
      output_format: body.output_format,
    });
    // The form sets its own content type.
    const { "content-type": _json, ...headers } = bearerHeaders(target);
    return { url: `${requireBaseUrl(target)}/stable-image/generate/${endpoint.path}`, headers: { ...headers, accept: "application/json" }, body: form };
  },
  async readReply(_operation, reply) {
    const image = await replyJson<StableImage>(reply);
    if (image.finish_reason === "CONTENT_FILTERED") return filtered();
    return jsonReply(reply, imagesResponse([{ b64_json: image.image ?? "" }]));
  },
  fanOut: { copies: (_operation, body) => imageCount(body), join: joinImageReplies },
};
