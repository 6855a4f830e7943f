/**
 * Cached contents, as the mock keeps them for the Gemini API (`cachedContents/{id}`, made for
 * `models/{model}`) and for Vertex AI (the same under `projects/{p}/locations/{l}/`, made for
 * `projects/{p}/locations/{l}/publishers/google/models/{model}`): created for one model, listed,
 * read, given a new expiry, deleted; a generateContent that names one counts its tokens as cached.
 */

type Content = { role?: string; parts: Array<{ text?: string }> };

export interface CachedContent {
  name: string;
  model: string;
  displayName?: string;
  expireTime: string;
  usageMetadata: { totalTokenCount: number };
}

const googleError = (code: number, status: string, message: string) => Response.json({ error: { code, message, status } }, { status: code });
const tokensOf = (contents: Content[] | undefined) => (contents ?? []).flatMap((content) => content.parts).reduce((sum, part) => sum + (part.text ?? "").split(/\s+/).filter(Boolean).length, 0);
const expiryAfter = (ttl: unknown) => new Date(Date.now() + Number.parseFloat(String(ttl ?? "3600s")) * 1000).toISOString();

/** Where the caches of a path live: `` (the Gemini API) or `projects/{p}/locations/{l}/` (Vertex AI), with the id named, if any. */
function scopeOf(path: string): { scope: string; id?: string } | undefined {
  const gemini = /^\/v1beta\/cachedContents(?:\/([\w-]+))?$/.exec(path);
  if (gemini) return { scope: "", id: gemini[1] };
  const vertex = /^\/v1\/(projects\/[^/]+\/locations\/[^/]+\/)cachedContents(?:\/([\w-]+))?$/.exec(path);
  return vertex ? { scope: vertex[1]!, id: vertex[2] } : undefined;
}

/** The name a model has in `scope`. */
const modelIn = (scope: string, model: string) => (scope ? `${scope}publishers/google/models/${model}` : `models/${model}`);

/** Answers `/v1beta/cachedContents[/{id}]` and Vertex's `/v1/projects/{p}/locations/{l}/cachedContents[/{id}]`, or undefined for any other path. */
export function cachedContentCall(caches: Map<string, CachedContent>, method: string, path: string, body: Record<string, unknown>): Response | undefined {
  const match = scopeOf(path);
  if (!match) return undefined;
  const { scope, id } = match;
  if (!id) {
    if (method === "GET") return Response.json({ cachedContents: [...caches.values()].filter((cache) => cache.name.startsWith(`${scope}cachedContents/`)) });
    if (typeof body.model !== "string" || !body.model.startsWith(modelIn(scope, ""))) return googleError(400, "INVALID_ARGUMENT", `model: a cached content is made for one model, ${modelIn(scope, "{model}")}`);
    const cache: CachedContent = { name: `${scope}cachedContents/${crypto.randomUUID().slice(0, 12)}`, model: body.model, displayName: body.displayName as string | undefined, expireTime: expiryAfter(body.ttl), usageMetadata: { totalTokenCount: tokensOf(body.contents as Content[]) } };
    caches.set(cache.name, cache);
    return Response.json(cache);
  }
  const cache = caches.get(`${scope}cachedContents/${id}`);
  if (!cache) return googleError(404, "NOT_FOUND", `CachedContent not found (or permission denied): ${scope}cachedContents/${id}`);
  if (method === "DELETE") {
    caches.delete(cache.name);
    return Response.json({});
  }
  if (method === "PATCH") cache.expireTime = expiryAfter(body.ttl);
  return Response.json(cache);
}

/**
 * The tokens a generateContent on `model` in `scope` (see cachedContentCall) reads from the cache it
 * names; a Response when the cache is unknown there or made for another model.
 */
export function cachedTokensFor(caches: Map<string, CachedContent>, body: Record<string, unknown>, model: string, scope = ""): number | Response {
  if (typeof body.cachedContent !== "string") return 0;
  const cache = body.cachedContent.startsWith(`${scope}cachedContents/`) ? caches.get(body.cachedContent) : undefined;
  if (!cache) return googleError(404, "NOT_FOUND", `CachedContent not found (or permission denied): ${body.cachedContent}`);
  if (cache.model !== modelIn(scope, model)) return googleError(400, "INVALID_ARGUMENT", `Model used by GenerateContent request (${modelIn(scope, model)}) and CachedContent (${cache.model}) has to be the same.`);
  return cache.usageMetadata.totalTokenCount;
}
