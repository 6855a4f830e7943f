import { Elysia, t } from "elysia";
import { badRequest, conflict, notFound } from "../../http/errors";
import { InputItemsQuery, inputItemsPage } from "../../responses";
import { backgroundView, cancelledRun, streamedView } from "../../responses/background-view";
import { replayedStream } from "../../responses/replayed-stream";
import { uuidOf } from "../../responses/ids";
import type { Inference } from "../handle";
import { answeredByHandler } from "../operation-handlers";
import { OPENAI_OBJECT_OPERATIONS, type ProviderObjectOperation, RESPONSE_OBJECT_OPERATIONS } from "../../upstream/provider-objects";
import { type ForwardCall, forwardedRoutes, keptObjectCalls } from "./kept-objects";
import { pathParams } from "./path-params";
import { videosOnVeo } from "./videos-on-veo";

const IdParams = pathParams({ id: t.String({ minLength: 1 }) });
/** `stream=true` reads a response as the events that write it, from after `starting_after` when given. */
const RetrieveQuery = t.Object({ stream: t.Optional(t.String()), starting_after: t.Optional(t.Numeric({ minimum: 0, multipleOf: 1 })) }, { additionalProperties: true });

/**
 * What OpenAI (or Azure) keeps (OPENAI_OBJECT_CALLS: responses, conversations, containers, vector
 * stores...), read and changed through the gateway: each call goes to the provider that keeps the
 * object, through the inference pipeline like every call. A response the gateway kept itself (a
 * bridged one, or one it writes in the background) is answered here.
 */
export function providerObjectRoutes(inference: Inference, mountProvider?: string) {
  const stored = inference.responses;
  const missing = (id: string) => notFound(`no response '${id}' is stored by this gateway`);
  const runsElsewhere = (id: string) => conflict(`response '${id}' is being written by another node of this deployment, which did not stop it in time (busy, or gone until another node takes its work over): try again`);

  /** A response the gateway is writing in the background (or wrote), as its job stands; undefined when there is none. */
  const backgroundJob = async (id: string, request: Request) => (stored?.ownsId(id) ? inference.background?.find(uuidOf(id), request.headers) : undefined);

  /** The stream a streamed `background: true` response was kept as; undefined for any other. */
  const keptStream = async (id: string, request: Request) => (stored?.ownsId(id) ? inference.streams?.ofRequest(uuidOf(id), request.headers) : undefined);

  /** A response the gateway keeps, as it stands: written, or as its background run or kept stream stands; undefined when it keeps none by that id. */
  const keptResponse = async (id: string, request: Request) => {
    const found = await stored?.find(id, request.headers);
    if (found) return found.response;
    const job = await backgroundJob(id, request);
    if (job) return backgroundView(id, job);
    const stream = await keptStream(id, request);
    return stream && streamedView(id, stream);
  };

  const forward = keptObjectCalls(inference, "openai", mountProvider);
  const forwardOrOnVeo = videosOnVeo(inference, mountProvider, forward);

  /** A call an operation handler answers itself (on a conversation the gateway keeps), or the provider's. */
  const forwardOrKeep: ForwardCall = async (operation, request, forwarded) =>
    answeredByHandler(inference.operations, operation, request, forwarded ?? {}, mountProvider) ?? forwardOrOnVeo(operation, request, forwarded);

  /** A response of the provider's; an id of the gateway's shape is not, even when not found here. */
  const forwardResponse = async (operation: ProviderObjectOperation, id: string, request: Request) => {
    if (stored?.ownsId(id)) throw missing(id);
    // A background response whose usage is not billed yet names its provider and model; the read that finds it finished bills it.
    const heldBy = operation === "response_retrieve" || operation === "response_cancel" ? await stored?.pendingInBackground(id) : undefined;
    return forward(operation, request, { params: { id }, heldBy, countsUsage: () => heldBy !== undefined && stored!.billsOnce(id) });
  };

  const routes = new Elysia()
    .get(
      "/responses/:id",
      async ({ params, query, request }) => {
        const stream = query.stream === "true" ? await keptStream(params.id, request) : undefined;
        // Its events are numbered from 1 where the Responses API numbers them from 0.
        if (stream) return stream.read(query.starting_after === undefined ? 0 : query.starting_after + 1);
        const response = await keptResponse(params.id, request);
        if (!response) return forwardResponse("response_retrieve", params.id, request);
        if (query.stream !== "true") return response;
        const next = async () => (await keptResponse(params.id, request)) ?? response;
        return new Response(replayedStream(response, next, query.starting_after, request.signal), { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
      },
      { params: IdParams, query: RetrieveQuery },
    )
    .get(
      "/responses/:id/input_items",
      async ({ params, query, request }) => {
        const found = await stored?.find(params.id, request.headers);
        return found ? inputItemsPage(found.input, params.id, query) : forwardResponse("response_input_items", params.id, request);
      },
      { params: IdParams, query: InputItemsQuery },
    )
    .delete(
      "/responses/:id",
      async ({ params, request }) => {
        // The job goes first: a run left going would store the response again once it finished.
        const job = await backgroundJob(params.id, request);
        if (job && !(await inference.background!.discard(uuidOf(params.id), request.headers))) throw runsElsewhere(params.id);
        const removed = await stored?.remove(params.id, request.headers);
        return job || removed ? { id: params.id, object: "response", deleted: true } : forwardResponse("response_delete", params.id, request);
      },
      { params: IdParams },
    )
    .post(
      "/responses/:id/cancel",
      async ({ params, request }) => {
        const job = await backgroundJob(params.id, request);
        if (job) {
          if (job.status !== "pending" && job.status !== "processing") return backgroundView(params.id, job);
          const after = await inference.background!.cancel(uuidOf(params.id), request.headers, cancelledRun);
          if (!after) throw runsElsewhere(params.id);
          return backgroundView(params.id, after);
        }
        const stream = await keptStream(params.id, request);
        if (stream) return streamedView(params.id, await stream.cancel());
        // The other responses the gateway keeps were answered in full before being returned: none is left running.
        if (await stored?.find(params.id, request.headers)) throw badRequest(`response '${params.id}' was not created with background: true, so there is nothing to cancel`, "response_id");
        return forwardResponse("response_cancel", params.id, request);
      },
      { params: IdParams },
    );

  // Every other call goes to the provider as it came.
  return forwardedRoutes(
    routes,
    OPENAI_OBJECT_OPERATIONS.filter((operation) => !RESPONSE_OBJECT_OPERATIONS.includes(operation)),
    forwardOrKeep,
  );
}
