import type { TextBlock } from "./wire";

/**
 * Citations across formats. Anthropic attaches them to text blocks; OpenAI puts annotations
 * with character spans on one content string. Each Anthropic citation keeps its raw form
 * under `citation`; those with a URL also read as OpenAI `url_citation`s.
 */
export interface Annotation {
  type: string;
  start_index?: number;
  end_index?: number;
  citation?: unknown;
  url_citation?: { url: string; title?: string; start_index: number; end_index: number };
}

type CitationWithUrl = { url: string; title?: string | null };

const hasUrl = (citation: unknown): citation is CitationWithUrl => typeof (citation as { url?: unknown } | null)?.url === "string";

function annotationOf(citation: unknown, start: number, end: number): Annotation {
  if (!hasUrl(citation)) return { type: "citation", start_index: start, end_index: end, citation };
  const urlCitation = { url: citation.url, ...(citation.title ? { title: citation.title } : {}), start_index: start, end_index: end };
  return { type: "url_citation", url_citation: urlCitation, citation };
}

/** Text blocks joined into one string, their citations as annotations over it. */
export function joinTextBlocks(blocks: TextBlock[]): { text: string; annotations: Annotation[] } {
  let text = "";
  const annotations: Annotation[] = [];
  for (const block of blocks) {
    const start = text.length;
    text += block.text;
    for (const citation of block.citations ?? []) annotations.push(annotationOf(citation, start, text.length));
  }
  return { text, annotations };
}

function spanOf(annotation: Annotation, text: string): { start: number; end: number; citation: unknown } | undefined {
  const start = annotation.start_index ?? annotation.url_citation?.start_index;
  const end = annotation.end_index ?? annotation.url_citation?.end_index;
  if (start === undefined || end === undefined) return undefined;
  const url = annotation.url_citation;
  return { start, end, citation: annotation.citation ?? (url && { type: "web_search_result_location", url: url.url, title: url.title ?? null, cited_text: text.slice(start, end), encrypted_index: "" }) };
}

/** One string with annotations, cut back into text blocks: cited spans carry their citations. */
export function splitIntoTextBlocks(text: string, annotations: readonly Annotation[]): TextBlock[] {
  const spans = annotations.map((annotation) => spanOf(annotation, text)).filter((span) => span?.citation !== undefined) as Array<{ start: number; end: number; citation: unknown }>;
  spans.sort((a, b) => a.start - b.start || a.end - b.end);
  const blocks: TextBlock[] = [];
  let cursor = 0;
  for (const span of spans) {
    const previous = blocks.at(-1);
    if (previous?.citations && span.start < cursor) {
      previous.citations.push(span.citation);
      continue;
    }
    if (span.start > cursor) blocks.push({ type: "text", text: text.slice(cursor, span.start) });
    blocks.push({ type: "text", text: text.slice(span.start, span.end), citations: [span.citation] });
    cursor = Math.max(cursor, span.end);
  }
  if (cursor < text.length || blocks.length === 0) blocks.push({ type: "text", text: text.slice(cursor) });
  return blocks.filter((block) => block.text !== "" || block.citations);
}
