import { badRequest } from "../../../http/errors";
import { aspectRatioOf } from "./imagen";

/**
 * Gemini's own image models (gemini-2.5-flash-image, gemini-3-pro-image-preview) make images in a
 * generateContent, not Imagen's `:predict`: OpenAI's image generation is written as one asking
 * for an image, and the image parts of its answer are read back as OpenAI's images reply, with the
 * tokens it was billed for.
 */

type Body = Record<string, unknown>;

type InlineData = { mimeType?: string; data?: string };
interface ImageContentReply {
  candidates?: Array<{ content?: { parts?: Array<{ inlineData?: InlineData; text?: string }> } }>;
  usageMetadata?: { promptTokenCount?: number; candidatesTokenCount?: number; thoughtsTokenCount?: number; totalTokenCount?: number };
}

/** Imagen's models are named `imagen-…`; every other image model of Google's is a Gemini model. */
export const isImagenModel = (model: string) => model.startsWith("imagen");

/** An OpenAI image generation as a generateContent asking for one image. */
export function geminiImageRequestOf(body: Body): Body {
  if (typeof body.n === "number" && body.n !== 1) throw badRequest("Gemini's image models make one image a request: n must be 1", "n");
  return {
    contents: [{ role: "user", parts: [{ text: body.prompt }] }],
    generationConfig: { responseModalities: ["IMAGE"], imageConfig: { aspectRatio: aspectRatioOf(body.size) } },
  };
}

/** The image parts of a generateContent answer as OpenAI's images reply, with its usage in the images API's naming. */
export function openAIImagesOfContent(reply: ImageContentReply): Body {
  const parts = reply.candidates?.[0]?.content?.parts ?? [];
  const images = parts.flatMap((part) => (part.inlineData?.data ? [{ b64_json: part.inlineData.data }] : []));
  const usage = reply.usageMetadata;
  const output = (usage?.candidatesTokenCount ?? 0) + (usage?.thoughtsTokenCount ?? 0);
  return {
    created: Math.floor(Date.now() / 1000),
    data: images,
    ...(usage ? { usage: { input_tokens: usage.promptTokenCount ?? 0, output_tokens: output, total_tokens: usage.totalTokenCount ?? (usage.promptTokenCount ?? 0) + output } } : {}),
  };
}
