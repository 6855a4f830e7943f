import { badRequest } from "../../../http/errors";
import type { ContentPart, ThinkingBlock } from "../../canonical";
import type { ContentBlock, ReasoningContent } from "./wire";

type ImageBlock = NonNullable<ContentBlock["image"]>;
type DocumentBlock = NonNullable<ContentBlock["document"]>;

const DATA_URL = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s;

/** Bedrock names document formats by extension; canonical file parts carry a media type. */
const DOCUMENT_MEDIA_TYPES: Record<string, string> = {
  pdf: "application/pdf",
  csv: "text/csv",
  doc: "application/msword",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xls: "application/vnd.ms-excel",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  html: "text/html",
  txt: "text/plain",
  md: "text/markdown",
};

export const imageToDataUrl = (image: ImageBlock) => `data:image/${image.format === "jpg" ? "jpeg" : image.format};base64,${image.source.bytes}`;

/** Bedrock takes image bytes only (or S3 locations), so a canonical image must be a base64 data URL. */
export function imageFromUrl(url: string, param: string): ImageBlock {
  const match = DATA_URL.exec(url);
  if (!match?.[1]?.startsWith("image/")) throw badRequest("Bedrock accepts images only as base64 data URLs (data:image/png;base64,...)", param);
  return { format: match[1].slice("image/".length), source: { bytes: match[2]! } };
}

export function documentToFilePart(document: DocumentBlock): ContentPart {
  const mediaType = DOCUMENT_MEDIA_TYPES[document.format] ?? "application/octet-stream";
  return { type: "file", file: { file_data: `data:${mediaType};base64,${document.source.bytes}`, filename: document.name, media_type: mediaType } };
}

export function documentFromFilePart(file: Extract<ContentPart, { type: "file" }>["file"], param: string): DocumentBlock {
  const match = DATA_URL.exec(file.file_data ?? "");
  if (!match) throw badRequest("Bedrock accepts documents only as base64 data (file_data as a data URL)", param);
  const mediaType = file.media_type ?? match[1]!;
  const extension = file.filename?.split(".").pop()?.toLowerCase();
  const format = Object.entries(DOCUMENT_MEDIA_TYPES).find(([, type]) => type === mediaType)?.[0] ?? (extension && extension in DOCUMENT_MEDIA_TYPES ? extension : undefined);
  if (!format) throw badRequest(`Bedrock does not accept documents of type '${mediaType}'`, param);
  // Bedrock allows only letters, digits, single spaces, hyphens, parentheses and brackets in names.
  const name = (file.filename?.replace(/\.[^.]*$/, "") ?? "document").replace(/[^\w\s\-()[\]]/g, " ").replace(/\s+/g, " ").trim() || "document";
  return { format, name, source: { bytes: match[2]! } };
}

export function thinkingFromReasoning(reasoning: ReasoningContent): ThinkingBlock | undefined {
  if (reasoning.redactedContent !== undefined) return { type: "redacted_thinking", data: reasoning.redactedContent };
  if (!reasoning.reasoningText) return undefined;
  const { text, signature } = reasoning.reasoningText;
  return signature === undefined ? { type: "thinking", thinking: text } : { type: "thinking", thinking: text, signature };
}

export function reasoningFromThinking(block: ThinkingBlock): ReasoningContent {
  if (block.type === "redacted_thinking") return { redactedContent: block.data };
  return { reasoningText: block.signature === undefined ? { text: block.thinking } : { text: block.thinking, signature: block.signature } };
}
