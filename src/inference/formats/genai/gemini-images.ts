import { badRequest } from "../../../http/errors";
import { summedUsage } from "../../summed-usage";
import { aspectRatioOf } from "./imagen";

/**
 * Gemini's own image models (gemini-2.5-flash-image, gemini-3-pro-image-preview) make and edit
 * images in a generateContent, not Imagen's `:predict`: OpenAI's image generation is written as
 * one asking for an image, an image edit as one giving the images to change beside the prompt,
 * and the image parts of its answer are read back as OpenAI's images reply, with the tokens it
 * was billed for.
 */

type Body = Record<string, unknown>;

type InlineData = { mimeType?: string; data?: string };
interface ImageContentReply {
  candidates?: Array<{ content?: { parts?: Array<{ inlineData?: InlineData; text?: string }> } }>;
  usageMetadata?: { promptTokenCount?: number; candidatesTokenCount?: number; thoughtsTokenCount?: number; totalTokenCount?: number };
}

/** Imagen's models are named `imagen-…`; every other image model of Google's is a Gemini model. */
export const isImagenModel = (model: string) => model.startsWith("imagen");

type InlineImage = { mimeType: string; data: string };

/** The images of an OpenAI image edit's form (`image`, or several as `image[]`), read into `images` as inline data. */
export async function withInlineImages(form: Body): Promise<Body> {
  const files = [form.image, form["image[]"]].flat().filter((value): value is Blob => value instanceof Blob);
  const images: InlineImage[] = await Promise.all(files.map(async (file) => ({ mimeType: file.type || "image/png", data: Buffer.from(await file.arrayBuffer()).toString("base64") })));
  const { image: _image, "image[]": _images, ...rest } = form;
  return { ...rest, images };
}

/** OpenAI's images API makes at most this many images a request. */
const MOST_IMAGES = 10;

/**
 * How many images an OpenAI image request asks for: its `n`, which a form sends as text and JSON
 * as a number. Gemini's image models answer one image a call, so each is a call of its own.
 */
export function imageCount(body: Body): number {
  if (body.n === undefined) return 1;
  const n = Number(body.n);
  if (!Number.isInteger(n) || n < 1 || n > MOST_IMAGES) throw badRequest(`n must be an integer from 1 to ${MOST_IMAGES}`, "n");
  return n;
}

/** An OpenAI image generation, or an edit whose images `withInlineImages` read, as a generateContent asking for one image. */
export function geminiImageRequestOf(body: Body, edits = false): Body {
  const images = edits ? ((body.images ?? []) as InlineImage[]) : [];
  if (edits && images.length === 0) throw badRequest("an edit needs the image to change", "image");
  if (edits && body.mask !== undefined) throw badRequest("Gemini's image models edit without a mask: say in the prompt what to change", "mask");
  return {
    contents: [{ role: "user", parts: [...images.map((inlineData) => ({ inlineData })), { text: body.prompt }] }],
    generationConfig: { responseModalities: ["IMAGE"], imageConfig: { aspectRatio: aspectRatioOf(body.size) } },
  };
}

/** The image parts of a generateContent answer as the images of OpenAI's images reply, with its usage in the images API's naming. */
export function contentImagesOf(reply: ImageContentReply): { images: Array<{ b64_json: string }>; usage?: Body } {
  const parts = reply.candidates?.[0]?.content?.parts ?? [];
  const images = parts.flatMap((part) => (part.inlineData?.data ? [{ b64_json: part.inlineData.data }] : []));
  const usage = reply.usageMetadata;
  if (!usage) return { images };
  const output = (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0);
  return { images, usage: { input_tokens: usage.promptTokenCount ?? 0, output_tokens: output, total_tokens: usage.totalTokenCount ?? (usage.promptTokenCount ?? 0) + output } };
}

export type ImagesReply = { created: number; data: unknown[]; usage?: Record<string, number> };

/** The images replies of several calls as one: every image, in call order, and the tokens of them all. */
export function joinedImagesReplies(replies: readonly ImagesReply[]): ImagesReply {
  const usages = replies.flatMap((reply) => (reply.usage ? [reply.usage] : []));
  const joined: ImagesReply = { created: replies[0]!.created, data: replies.flatMap((reply) => reply.data) };
  return usages.length > 0 ? { ...joined, usage: summedUsage(usages) } : joined;
}
