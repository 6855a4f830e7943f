/**
 * The long-running operation Veo makes a video in, as the Gemini API answers it (Vertex's answer
 * is rewritten into this shape): its name, whether it is done, and the videos it made, each by a
 * download URI (`…/files/{id}:download`) or inline.
 */
export interface VideoOperation {
  name?: string;
  done?: boolean;
  error?: { code?: unknown; message?: unknown };
  response?: {
    generateVideoResponse?: {
      generatedSamples?: Array<{ video?: { uri?: unknown; encodedVideo?: unknown; encoding?: unknown } }>;
      raiMediaFilteredCount?: number;
      raiMediaFilteredReasons?: unknown[];
    };
  };
}

/** `models/{model}/operations/{id}`, at the end of a name or path (Vertex's names start with the project). */
const OPERATION_NAME = /(?:^|\/)models\/([^/]+)\/operations\/([^/]+)$/;

/** The model and operation id an operation's name (or a path ending in one) names; undefined for anything else. */
export function operationNameParts(name: string): { model: string; id: string } | undefined {
  const match = OPERATION_NAME.exec(name);
  return match ? { model: match[1]!, id: match[2]! } : undefined;
}

/** The Gemini API file a URI names (a video's download URI, `…/files/{id}:download?alt=media`). */
export const fileIdInUri = (uri: unknown): string | undefined => (typeof uri === "string" ? /\/files\/([^/:?]+)/.exec(uri)?.[1] : undefined);

/** The files a finished operation made, one a video. */
export const videoFileIdsOf = (operation: VideoOperation): string[] => (operation.response?.generateVideoResponse?.generatedSamples ?? []).flatMap((sample) => fileIdInUri(sample.video?.uri) ?? []);

/** Whether a finished operation failed: an error, or no video made (every one filtered out). */
export const videoOperationFailed = (operation: VideoOperation): boolean => operation.done === true && (operation.error !== undefined || (operation.response?.generateVideoResponse?.generatedSamples ?? []).length === 0);

/** Of the videos a finished operation was asked for, the share it did not make: all of them when it failed, else those its safety filter took out. */
export function unmadeShareOf(operation: VideoOperation): number {
  if (videoOperationFailed(operation)) return 1;
  const made = operation.response?.generateVideoResponse?.generatedSamples?.length ?? 0;
  const filtered = operation.response?.generateVideoResponse?.raiMediaFilteredCount ?? 0;
  return filtered > 0 ? filtered / (made + filtered) : 0;
}
