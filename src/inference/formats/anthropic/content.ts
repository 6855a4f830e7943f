import type { CacheControl, ContentPart } from "../../canonical";
import type { ContentBlock, MediaSource } from "./wire";

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

const withCache = <T extends ContentPart | ContentBlock>(value: T, cacheControl: CacheControl | undefined): T => (cacheControl ? { ...value, cache_control: cacheControl } : value);

/** A base64 source becomes a `data:` URL, a URL source stays a URL. */
function sourceToUrl(source: MediaSource): string | undefined {
  if (source.type === "base64") return `data:${source.media_type};base64,${source.data}`;
  if (source.type === "url") return source.url;
  return undefined;
}

function urlToSource(url: string, mediaType?: string): MediaSource {
  const match = DATA_URL.exec(url);
  if (match) return { type: "base64", media_type: match[1]!, data: match[2]! };
  if (/^https?:\/\//i.test(url)) return { type: "url", url };
  return { type: "base64", media_type: mediaType ?? "application/pdf", data: url };
}

function documentToPart(block: Extract<ContentBlock, { type: "document" }>): ContentPart | undefined {
  const { source, title, cache_control: cacheControl } = block;
  if (source.type === "text") return withCache({ type: "text", text: source.data }, cacheControl);
  if (source.type === "file") return withCache({ type: "file", file: { file_id: source.file_id, filename: title } }, cacheControl);
  const mediaType = source.type === "base64" ? source.media_type : undefined;
  return withCache({ type: "file", file: { file_data: sourceToUrl(source), filename: title, media_type: mediaType } }, cacheControl);
}

/** A content block of a user turn as a canonical part; blocks with no canonical twin give undefined. */
export function blockToPart(block: ContentBlock): ContentPart | undefined {
  switch (block.type) {
    case "text":
      return withCache({ type: "text", text: block.text, ...(block.citations ? { citations: block.citations } : {}) }, block.cache_control);
    case "image": {
      const url = sourceToUrl(block.source);
      return url ? withCache({ type: "image_url", image_url: { url } }, block.cache_control) : undefined;
    }
    case "document":
      return documentToPart(block);
    default:
      return undefined;
  }
}

export function partToBlock(part: ContentPart): ContentBlock {
  switch (part.type) {
    case "text":
      return withCache({ type: "text", text: part.text, ...(part.citations ? { citations: part.citations } : {}) }, part.cache_control);
    case "image_url":
      return withCache({ type: "image", source: urlToSource(part.image_url.url) }, part.cache_control);
    case "file": {
      const { file_id: fileId, file_data: fileData, filename, media_type: mediaType } = part.file;
      const source: MediaSource = fileId ? { type: "file", file_id: fileId } : urlToSource(fileData ?? "", mediaType);
      return withCache({ type: "document", source, ...(filename ? { title: filename } : {}) }, part.cache_control);
    }
  }
}

/** One plain text part reads best as a string; anything richer stays a list of parts. */
export function simplifiedContent(parts: ContentPart[]): string | ContentPart[] {
  const [only] = parts;
  if (parts.length === 1 && only?.type === "text" && !only.cache_control && !only.citations) return only.text;
  return parts;
}
