/**
 * Cached contents and the models they are made for, named the Gemini API's way
 * (`cachedContents/{id}`, `models/{model}`) or Vertex AI's, under a location
 * (`projects/{p}/locations/{l}/cachedContents/{id}`, `…/publishers/google/models/{model}`). The
 * gateway's genai pipeline names them the Gemini API's way: Vertex AI's names are taken back to
 * those on the way in and written again on the way out.
 */

const VERTEX_CACHE = /^projects\/[^/]+\/locations\/[^/]+\/cachedContents\/([^/]+)$/;
const VERTEX_MODEL = /^projects\/[^/]+\/locations\/[^/]+\/publishers\/google\/models\/([^/]+)$/;

/** A cached content's name the Gemini API's way, from either. */
export const geminiCacheName = (name: string): string => name.replace(VERTEX_CACHE, "cachedContents/$1");

/** A model's name the Gemini API's way, from either (a bare id as is). */
export const geminiModelName = (name: string): string => name.replace(VERTEX_MODEL, "models/$1");

/** A cached content's name under `location` (`projects/{p}/locations/{l}`), from either. */
export const vertexCacheName = (location: string, name: string): string => `${location}/cachedContents/${geminiCacheName(name).replace(/^cachedContents\//, "")}`;

/** A model's name under `location`, from either (or a bare id). */
export const vertexModelName = (location: string, name: string): string => `${location}/publishers/google/models/${geminiModelName(name).replace(/^models\//, "")}`;

/** How a cached content and the model it is made for are named, from a name either way. */
export interface CacheNaming {
  cache(name: string): string;
  model(name: string): string;
}

/** The Gemini API's names. */
export const GEMINI_NAMING: CacheNaming = { cache: geminiCacheName, model: geminiModelName };

/** Vertex AI's names under `location`. */
export const vertexNaming = (location: string): CacheNaming => ({ cache: (name) => vertexCacheName(location, name), model: (name) => vertexModelName(location, name) });

/** A prompt naming its cached content Vertex AI's way, named the Gemini API's way. */
export function withGeminiCacheName(body: unknown): unknown {
  const { cachedContent } = (body ?? {}) as { cachedContent?: unknown };
  return typeof cachedContent === "string" ? { ...(body as object), cachedContent: geminiCacheName(cachedContent) } : body;
}

type Named = { name?: unknown; model?: unknown };

const renamed = (cache: Named, naming: CacheNaming): Named => ({
  ...cache,
  ...(typeof cache.name === "string" ? { name: naming.cache(cache.name) } : {}),
  ...(typeof cache.model === "string" ? { model: naming.model(cache.model) } : {}),
});

/** A reply about cached contents (one, or a page of them) with their names written by `naming`. */
export function cachedContentsNamed(body: unknown, naming: CacheNaming): unknown {
  if (typeof body !== "object" || body === null) return body;
  const { cachedContents } = body as { cachedContents?: unknown };
  if (Array.isArray(cachedContents)) return { ...body, cachedContents: cachedContents.map((cache: Named) => renamed(cache, naming)) };
  return renamed(body as Named, naming);
}
