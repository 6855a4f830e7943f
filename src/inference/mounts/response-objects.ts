import { Elysia, t } from "elysia";
import { badRequest, notFound } from "../../http/errors";
import { InputItemsQuery, inputItemsPage } from "../../responses";
import { handleInference, type Inference } from "../handle";
import type { ResponseObjectOperation } from "../operations";
import type { ResponseObjectBody } from "../providers/openai-compatible/response-objects";

const ResponseParams = t.Object({ id: t.String({ minLength: 1 }) });

/**
 * The provider that keeps a response the gateway did not: the one named (`x-gw-provider`, or the
 * `provider` query parameter), the mount's, else the only one with OpenAI's Responses API, or
 * `openai` among several. Undefined when no provider keeps responses.
 */
function keeperOf(inference: Inference, request: Request, mountProvider: string | undefined): string | undefined {
  const named = request.headers.get("x-gw-provider") ?? new URL(request.url).searchParams.get("provider") ?? mountProvider;
  if (named) return named;
  const keepers = inference.providers.list().filter((provider) => provider.adapter.operations.has("response_retrieve"));
  if (keepers.length <= 1) return keepers[0]?.name;
  if (keepers.some((provider) => provider.name === "openai")) return "openai";
  throw badRequest("several providers keep responses: name one with the x-gw-provider header or the `provider` query parameter", "provider", "caller_provider_required");
}

/**
 * `GET`, `DELETE /responses/{id}`, `GET /responses/{id}/input_items` and
 * `POST /responses/{id}/cancel`: a response the gateway kept (a bridged one) is answered here; any
 * other goes to the provider that keeps it, through the inference pipeline like every call.
 */
export function responseObjectRoutes(inference: Inference, mountProvider?: string) {
  const stored = inference.responses;
  const missing = (id: string) => notFound(`no response '${id}' is stored by this gateway`);

  const forward = async (operation: ResponseObjectOperation, id: string, request: Request) => {
    if (stored?.ownsId(id)) throw missing(id);
    // A background response whose usage is not billed yet names its provider and model, and the read that finds it finished bills it.
    const pending = operation === "response_retrieve" || operation === "response_cancel" ? await stored?.pendingInBackground(id) : undefined;
    const provider = pending?.provider ?? keeperOf(inference, request, mountProvider);
    if (!provider) throw missing(id);
    const url = new URL(request.url);
    url.searchParams.delete("provider");
    const body: ResponseObjectBody = { id, search: url.search };
    return handleInference(inference, {
      operation,
      format: "openai",
      body,
      model: `${provider}/${pending?.model ?? "*"}`,
      fallbacks: [],
      // A background response is read back as a stream with `?stream=true`.
      stream: operation === "response_retrieve" && url.searchParams.get("stream") === "true",
      request,
      mountProvider,
      countsUsage: () => pending !== undefined && stored!.billsOnce(id),
    });
  };

  return new Elysia()
    .get(
      "/responses/:id",
      async ({ params, request }) => (await stored?.find(params.id, request.headers))?.response ?? forward("response_retrieve", params.id, request),
      { params: ResponseParams },
    )
    .get(
      "/responses/:id/input_items",
      async ({ params, query, request }) => {
        const found = await stored?.find(params.id, request.headers);
        return found ? inputItemsPage(found.input, params.id, query) : forward("response_input_items", params.id, request);
      },
      { params: ResponseParams, query: InputItemsQuery },
    )
    .delete(
      "/responses/:id",
      async ({ params, request }) => ((await stored?.remove(params.id, request.headers)) ? { id: params.id, object: "response", deleted: true } : forward("response_delete", params.id, request)),
      { params: ResponseParams },
    )
    .post(
      "/responses/:id/cancel",
      async ({ params, request }) => {
        // The gateway answers the responses it keeps in full before returning them: none is left running.
        if (await stored?.find(params.id, request.headers)) throw badRequest(`response '${params.id}' was not created with background: true, so there is nothing to cancel`, "response_id");
        return forward("response_cancel", params.id, request);
      },
      { params: ResponseParams },
    );
}
