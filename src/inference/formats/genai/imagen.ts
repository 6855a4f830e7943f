import { badRequest } from "../../../http/errors";

/**
 * Imagen's `:predict` (Gemini API) and OpenAI's image generation, each written as the other: the
 * gateway's image generation is OpenAI's shape on every route, so the Gemini adapter writes it as
 * Imagen's request and reads Imagen's reply back, and the genai mount does the reverse for a
 * client of `@google/genai`'s `generateImages`.
 */

type Body = Record<string, unknown>;

export interface ImagenRequest {
  instances?: Array<{ prompt?: unknown }>;
  parameters?: { sampleCount?: unknown; aspectRatio?: unknown; [field: string]: unknown };
}

interface ImagenPrediction {
  bytesBase64Encoded?: string;
  mimeType?: string;
}

/** Imagen's aspect ratios, and the OpenAI size each stands for. */
const SIZES: Record<string, string> = { "1:1": "1024x1024", "16:9": "1792x1024", "9:16": "1024x1792", "4:3": "1536x1024", "3:4": "1024x1536" };

/** The aspect ratio nearest an OpenAI size (`WxH`); square when none is given. */
export function aspectRatioOf(size: unknown): string {
  const [width, height] = typeof size === "string" ? size.split("x").map(Number) : [];
  if (!width || !height) return "1:1";
  const ratio = width / height;
  const nearest = Object.keys(SIZES).map((aspect) => {
    const [w, h] = aspect.split(":").map(Number);
    return { aspect, distance: Math.abs(Math.log(ratio / (w! / h!))) };
  });
  return nearest.sort((a, b) => a.distance - b.distance)[0]!.aspect;
}

/** An OpenAI image generation as Imagen's predict request. */
export function imagenRequestOf(body: Body): ImagenRequest {
  return { instances: [{ prompt: body.prompt }], parameters: { sampleCount: typeof body.n === "number" ? body.n : 1, aspectRatio: aspectRatioOf(body.size) } };
}

/** Imagen's predictions as the images of OpenAI's images reply (base64; Imagen gives no URLs). */
export function imagenImagesOf(reply: { predictions?: ImagenPrediction[] }): Array<{ b64_json: string }> {
  return (reply.predictions ?? []).flatMap((prediction) => (typeof prediction.bytesBase64Encoded === "string" ? [{ b64_json: prediction.bytesBase64Encoded }] : []));
}

/** An Imagen predict request as OpenAI's image generation; a request without a prompt is a 400 naming it. */
export function openAIImageRequestOf(request: ImagenRequest): Body {
  const prompt = request.instances?.[0]?.prompt;
  if (typeof prompt !== "string" || prompt.length === 0) throw badRequest("instances[0].prompt: an image needs its prompt", "instances[0].prompt");
  const { sampleCount, aspectRatio } = request.parameters ?? {};
  return { prompt, n: typeof sampleCount === "number" ? sampleCount : 1, size: SIZES[String(aspectRatio)] ?? SIZES["1:1"], response_format: "b64_json" };
}

/** OpenAI's images reply as Imagen's predictions. */
export function imagenReplyOf(reply: { data?: Array<{ b64_json?: string }> }): Body {
  return { predictions: (reply.data ?? []).flatMap((image) => (image.b64_json ? [{ bytesBase64Encoded: image.b64_json, mimeType: "image/png" }] : [])) };
}
