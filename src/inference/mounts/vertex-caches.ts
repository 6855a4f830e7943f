import { Elysia, t } from "elysia";
import { cachedContentsNamed, GEMINI_NAMING, vertexNaming } from "../formats/genai/cached-content-names";
import type { Inference } from "../handle";
import type { ProviderObjectOperation } from "../../upstream/provider-objects";
import { rewritten } from "./genai-replies";
import { JsonObject, keptObjectCalls } from "./kept-objects";
import { pathParams } from "./path-params";

const LocationParams = pathParams({ project: t.String({ minLength: 1 }), location: t.String({ minLength: 1 }) });
const CacheParams = pathParams({ project: t.String({ minLength: 1 }), location: t.String({ minLength: 1 }), id: t.String({ minLength: 1 }) });

type CacheCall = { params: { project: string; location: string; id?: string }; body: unknown; request: Request };

/**
 * `caches.*` of `@google/genai` in Vertex AI mode, under the client's project and location: kept by
 * `keeper()` (the Vertex provider where one is configured) unless the client names a provider, and
 * answered with the names under the client's location, which its next calls and prompts use. The
 * Gemini API's names travel in between (formats/genai/cached-content-names.ts).
 */
export function vertexModeCacheRoutes(inference: Inference, keeper: () => string | undefined) {
  const call = (operation: ProviderObjectOperation) => async ({ params, body, request }: CacheCall) => {
    // The keeper is read per call: a Vertex provider may be added while the gateway runs.
    const forward = keptObjectCalls(inference, "genai", keeper());
    const json = body === undefined ? undefined : cachedContentsNamed(body, GEMINI_NAMING);
    const reply = await forward(operation, request, { params: params.id ? { id: params.id } : {}, json });
    return rewritten(reply, (answer) => cachedContentsNamed(answer, vertexNaming(`projects/${params.project}/locations/${params.location}`)));
  };
  const routes = new Elysia();
  for (const version of ["v1beta1", "v1"]) {
    const caches = `/${version}/projects/:project/locations/:location/cachedContents`;
    routes
      .post(caches, call("gemini_cache_create"), { params: LocationParams, body: JsonObject })
      .get(caches, call("gemini_cache_list"), { params: LocationParams })
      .get(`${caches}/:id`, call("gemini_cache_get"), { params: CacheParams })
      .patch(`${caches}/:id`, call("gemini_cache_update"), { params: CacheParams, body: JsonObject })
      .delete(`${caches}/:id`, call("gemini_cache_delete"), { params: CacheParams });
  }
  return routes;
}
