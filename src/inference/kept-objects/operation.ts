import type { Dispatched } from "../dispatch";
import type { InferenceCall } from "../handle";
import type { ModelRef } from "../model-ref";
import { keptByGateway, type OperationHandler, type OperationRun } from "../operation-handlers";
import { conversationIdOf } from "../../responses/chain";
import { isProviderObjectOperation } from "../../upstream/operations";
import { type Creates, PROVIDER_OBJECT_CALLS } from "../../upstream/provider-objects";
import { createdIdsOf, type ObjectKeys, rememberingStreamedCreate } from "./object-keys";

/** What the reply creates that the provider keeps: a response of its own Responses API, a stored chat completion, a batch, or what the call table says (an upload session too). */
function createdByCall(call: InferenceCall, result: Dispatched): Creates | undefined {
  if (result.operation === "responses") return call.body.store !== false || undefined;
  if (call.operation === "chat") return (call.body.store === true && result.format === "openai") || undefined;
  if (call.operation === "invoke") return call.endpoint === "batches" || undefined;
  // Veo's operation: polled with the key that started it.
  if (call.operation === "video_generation") return true;
  return isProviderObjectOperation(call.operation) ? PROVIDER_OBJECT_CALLS[call.operation].creates : undefined;
}

/** Whether the reply to `call` may create something the provider keeps; most calls create nothing, and take no part. */
function mayCreate(call: InferenceCall): boolean {
  switch (call.operation) {
    case "responses":
    case "video_generation":
      return true;
    case "chat":
      return call.body.store === true;
    case "invoke":
      return call.endpoint === "batches";
    default:
      return isProviderObjectOperation(call.operation) && PROVIDER_OBJECT_CALLS[call.operation].creates !== undefined;
  }
}

/**
 * Remembers which key made what the reply creates, when the provider has several: later calls on
 * it go with that key. A stream names it in its first event, and ends once it is remembered; a
 * reply that names it in a header (an upload session, a Realtime call) is remembered before it goes out.
 */
function rememberingCreated(objectKeys: ObjectKeys, call: InferenceCall, result: Dispatched): Dispatched | Promise<Dispatched> {
  const { keyId, target } = result;
  const creates = keyId ? createdByCall(call, result) : undefined;
  if (!creates || !keyId || !objectKeys.tracks(target.provider)) return result;
  // A streamed reply names what it created in its first event; headers name it either way.
  if (creates === true && "stream" in result) return { ...result, stream: rememberingStreamedCreate(result.stream, (id) => objectKeys.remember(target.provider, id, keyId)) };
  const created = createdIdsOf(creates, { headers: result.headers, body: "body" in result ? result.body : "" });
  return created.length > 0 ? Promise.all(created.map((id) => objectKeys.remember(target.provider, id, keyId))).then(() => result) : result;
}

/**
 * The objects a provider keeps for its clients (its responses, stored chat completions, batches,
 * videos, files...), attached to the pipeline: a call continuing one goes with the key that made
 * it, and a reply creating one remembers its key. What the gateway keeps itself (its responses,
 * its conversations: what another handler `ownsId`) no key made.
 */
export function keptObjectsOperation(objectKeys: ObjectKeys): OperationHandler {
  return {
    pinnedKey(call: InferenceCall, primary: ModelRef, handlers: readonly OperationHandler[]) {
      if (call.operation !== "responses") return undefined;
      const { previous_response_id: previous, conversation } = call.body as { previous_response_id?: unknown; conversation?: unknown };
      const named = typeof previous === "string" ? previous : conversationIdOf(conversation);
      if (named === undefined || keptByGateway(handlers, named)) return undefined;
      return objectKeys.keyOf(primary.provider, named);
    },
    before(call): OperationRun | undefined {
      return mayCreate(call) ? { answered: (result) => rememberingCreated(objectKeys, call, result) } : undefined;
    },
  };
}
