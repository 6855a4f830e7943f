import type { Operation } from "../upstream/operations";

type Body = Record<string, unknown>;

/**
 * What a call priced by the unit rather than by the token is billed for: images made (DALL·E),
 * characters read out (tts-1), seconds of audio heard (whisper-1), seconds of video made (Sora, Veo).
 */
export interface BilledUnits {
  images?: number;
  characters?: number;
  audioSeconds?: number;
  videoSeconds?: number;
  /** The model they were made with, when only the reply names it (a video create names no model to route by). */
  model?: string;
  /** The variant of the model they were made with, when the reply names it (a video's size). */
  variant?: string;
}

const IMAGE_OPERATIONS: ReadonlySet<Operation> = new Set(["image_generation", "image_edit"]);
const VIDEO_CREATES: ReadonlySet<Operation> = new Set(["video_create", "video_remix", "video_edit", "video_extend"]);

const positive = (value: unknown): number | undefined => {
  const number = typeof value === "string" ? Number(value) : value;
  return typeof number === "number" && Number.isFinite(number) && number > 0 ? number : undefined;
};

/** The units a reply reports (OpenAI's shapes): the images in it, a transcription's duration, a video's length. */
export function replyUnits(operation: Operation, body: unknown): BilledUnits | undefined {
  const reply = body as Body;
  if (IMAGE_OPERATIONS.has(operation) && Array.isArray(reply.data)) return { images: reply.data.length };
  if (operation === "transcription" || operation === "translation") {
    const usage = reply.usage as { type?: unknown; seconds?: unknown } | undefined;
    const seconds = usage?.type === "duration" ? positive(usage.seconds) : positive(reply.duration);
    return seconds ? { audioSeconds: seconds } : undefined;
  }
  if (VIDEO_CREATES.has(operation)) {
    const seconds = positive(reply.seconds);
    if (!seconds) return undefined;
    return { videoSeconds: seconds, ...(typeof reply.model === "string" ? { model: reply.model } : {}), ...(typeof reply.size === "string" ? { variant: reply.size } : {}) };
  }
  return undefined;
}

/** Veo makes videos this long unless asked otherwise. */
const VEO_DEFAULT_SECONDS = 8;

/**
 * The units a request sets itself: the text a speech call reads out, whose reply is only audio;
 * the seconds of video Veo is asked for, whose reply is only the operation that will make them.
 */
export function requestUnits(operation: Operation, body: Body): BilledUnits | undefined {
  if (operation === "speech" && typeof body.input === "string") return { characters: body.input.length };
  if (operation === "video_generation") {
    const parameters = (body.parameters ?? {}) as Body;
    return { videoSeconds: (positive(parameters.durationSeconds) ?? VEO_DEFAULT_SECONDS) * (positive(parameters.sampleCount) ?? 1) };
  }
  return undefined;
}

/**
 * The variant of a model a unit price depends on: the reply's (a video's size), else an image's
 * quality and size as the request asked. The catalogue names a priced variant `model@variant`;
 * `@` is one of its version separators, so a variant without a price of its own finds the model's.
 */
export function priceVariant(operation: Operation, body: Body, units: BilledUnits | undefined): string | undefined {
  if (units?.variant) return units.variant;
  if (IMAGE_OPERATIONS.has(operation)) return `${typeof body.quality === "string" ? body.quality : "standard"}@${typeof body.size === "string" ? body.size : "1024x1024"}`;
  return undefined;
}
