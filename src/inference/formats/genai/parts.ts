/** Gemini media parts (inlineData, fileData) and the canonical content parts, both ways. */
import type { ContentPart } from "../../canonical";
import type { Part } from "./schemas";

const DATA_URL = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s;

function parseDataUrl(url: string): { mimeType: string; data: string } | undefined {
  const match = DATA_URL.exec(url);
  return match ? { mimeType: match[1]!, data: match[2]! } : undefined;
}

const IMAGE_TYPES: Record<string, string> = { png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", gif: "image/gif", webp: "image/webp", heic: "image/heic" };

/** Gemini's fileData needs a media type; an image URL rarely says more than its extension. */
function imageTypeOf(url: string): string {
  const extension = /\.([a-z0-9]+)(?:[?#]|$)/i.exec(url)?.[1]?.toLowerCase();
  return (extension && IMAGE_TYPES[extension]) ?? "image/jpeg";
}

/**
 * A media part as canonical content: images as `image_url` (data URL or the file's URI), other
 * media as `file` (inline data as a data URL in `file_data`, a file URI as `file_id`).
 */
export function mediaPartToCanonical(part: Part): ContentPart | undefined {
  if (part.inlineData) {
    const { mimeType, data } = part.inlineData;
    const url = `data:${mimeType};base64,${data}`;
    return mimeType.startsWith("image/") ? { type: "image_url", image_url: { url } } : { type: "file", file: { file_data: url, media_type: mimeType } };
  }
  if (part.fileData) {
    const { mimeType, fileUri } = part.fileData;
    if (mimeType?.startsWith("image/")) return { type: "image_url", image_url: { url: fileUri } };
    return { type: "file", file: { file_id: fileUri, media_type: mimeType } };
  }
  return undefined;
}

function fileToPart(file: Extract<ContentPart, { type: "file" }>["file"]): Part {
  if (file.file_data) {
    const inline = parseDataUrl(file.file_data);
    return { inlineData: inline ?? { mimeType: file.media_type ?? "application/octet-stream", data: file.file_data } };
  }
  return { fileData: { mimeType: file.media_type ?? "application/octet-stream", fileUri: file.file_id ?? "" } };
}

export function canonicalPartToPart(part: ContentPart): Part {
  switch (part.type) {
    case "text":
      return { text: part.text };
    case "image_url": {
      const inline = parseDataUrl(part.image_url.url);
      return inline ? { inlineData: inline } : { fileData: { mimeType: imageTypeOf(part.image_url.url), fileUri: part.image_url.url } };
    }
    case "file":
      return fileToPart(part.file);
  }
}
