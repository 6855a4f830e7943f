import type { StoredResponses } from "../../responses";
import { inputItemsOf } from "../../responses/chain";
import type { BridgedResponse } from "../formats/openai/responses-reply";
import type { OperationHandler } from "../operation-handlers";

/**
 * The responses the gateway keeps for providers without a Responses API, attached to the
 * pipeline: a call continuing one (`previous_response_id`) is joined to the conversation before
 * the upstream call, and a Responses call answered as a chat is kept as the response it becomes,
 * `resp_` and the request's id, unless the client said `store: false`. A continuation stores
 * only the items after the conversation it continued.
 */
export function storedResponsesOperation(responses: StoredResponses): OperationHandler {
  return {
    ownsId: responses.ownsId,
    before(call, context) {
      if (call.operation !== "responses") return undefined;
      const owner = context.caller?.virtualKeyId;
      return responses.continued(context.body, owner).then(async ({ body, continuing }) => {
        context.body = await responses.withItemsReferenced(body, owner);
        return {
          bridged(id): BridgedResponse {
            if (!responses.enabled || call.body.store === false) return { id };
            const owner = context.caller?.virtualKeyId ?? null;
            const wholeInput = inputItemsOf(context.body);
            const linked = continuing !== undefined && wholeInput.length >= continuing.length;
            const previousId = linked ? continuing.id : null;
            const ownInput = linked ? wholeInput.slice(continuing.length) : wholeInput;
            return { id, completed: (response) => responses.keep({ id, owner, previousId, ownInput, wholeInput, response }) };
          },
        };
      });
    },
  };
}
