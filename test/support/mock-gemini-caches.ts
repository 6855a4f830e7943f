/**
 * The Gemini API's cached contents, as the mock keeps them: created for one model, listed, read,
 * given a new expiry, deleted; a generateContent that names one counts its tokens as cached.
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

/** Answers `/v1beta/cachedContents[/{id}]`, or undefined for any other path. */
export function cachedContentCall(caches: Map<string, CachedContent>, method: string, path: string, body: Record<string, unknown>): Response | undefined {
  const match = /^\/v1beta\/cachedContents(?:\/([\w-]+))?$/.exec(path);
  if (!match) return undefined;
  const id = match[1];
  if (!id) {
    if (method === "GET") return Response.json({ cachedContents: [...caches.values()] });
    if (typeof body.model !== "string" || !body.model.startsWith("models/")) return googleError(400, "INVALID_ARGUMENT", "model: a cached content is made for one model, models/{model}");
    const cache: CachedContent = { name: `cachedContents/${crypto.randomUUID().slice(0, 12)}`, model: body.model, displayName: body.displayName as string | undefined, expireTime: expiryAfter(body.ttl), usageMetadata: { totalTokenCount: tokensOf(body.contents as Content[]) } };
    caches.set(cache.name, cache);
    return Response.json(cache);
  }
  const cache = caches.get(`cachedContents/${id}`);
  if (!cache) return googleError(404, "NOT_FOUND", `CachedContent not found (or permission denied): cachedContents/${id}`);
  if (method === "DELETE") {
    caches.delete(cache.name);
    return Response.json({});
  }
  if (method === "PATCH") cache.expireTime = expiryAfter(body.ttl);
  return Response.json(cache);
}

/** The tokens a generateContent reads from the cache it names; a Response when the cache is unknown or made for another model. */
export function cachedTokensFor(caches: Map<string, CachedContent>, body: Record<string, unknown>, model: string): number | Response {
  if (typeof body.cachedContent !== "string") return 0;
  const cache = caches.get(body.cachedContent);
  if (!cache) return googleError(404, "NOT_FOUND", `CachedContent not found (or permission denied): ${body.cachedContent}`);
  if (cache.model !== `models/${model}`) return googleError(400, "INVALID_ARGUMENT", `Model used by GenerateContent request (models/${model}) and CachedContent (${cache.model}) has to be the same.`);
  return cache.usageMetadata.totalTokenCount;
}
