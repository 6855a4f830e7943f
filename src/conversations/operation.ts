import type { Forwarded } from "../inference/mounts/kept-objects";
import type { OperationHandler } from "../inference/operation-handlers";
import type { ProviderObjectOperation } from "../upstream/provider-objects";
import type { ProviderStore } from "../provider-registry/store";
import { CONVERSATION_OPERATIONS, type ConversationOperation, type Conversations } from "./index";

const isConversationOperation = (operation: ProviderObjectOperation): operation is ConversationOperation => (CONVERSATION_OPERATIONS as readonly ProviderObjectOperation[]).includes(operation);

/** Who a conversation is created with when the client names it: `x-gw-provider: gateway`, or `?provider=gateway`. */
const GATEWAY_KEEPER = "gateway";

/**
 * The conversations the gateway keeps, attached to the pipeline: a Responses call naming one is
 * joined to its items before the upstream call and adds its turn as the reply is read, and the
 * calls on conversations the gateway keeps are answered here instead of by a provider.
 */
export function conversationOperation(conversations: Conversations, providers: ProviderStore): OperationHandler {
  /**
   * Whether the gateway answers a call on conversations: one it keeps (an id of its shape), or a
   * new one the client asks it to keep or that no named (or configured) provider would keep.
   */
  const keptByGateway = (params: Record<string, string> | undefined, request: Request, mountProvider: string | undefined) => {
    if (params?.id) return conversations.ownsId(params.id);
    const keeps = (provider: string) => providers.get(provider)?.adapter.operations.has("conversation_create") === true;
    const named = request.headers.get("x-gw-provider") ?? new URL(request.url).searchParams.get("provider") ?? mountProvider;
    if (named) return named === GATEWAY_KEEPER || !keeps(named);
    return !providers.list().some((provider) => keeps(provider.name));
  };

  return {
    ownsId: conversations.ownsId,
    before(call, context) {
      if (call.operation !== "responses") return undefined;
      return conversations.joined(context.body, context.caller?.virtualKeyId).then(({ body, turn }) => {
        context.body = body;
        return turn && { replied: (reply: Response) => conversations.recording(turn, reply) };
      });
    },
    answer(operation: ProviderObjectOperation, request: Request, forwarded: Forwarded, mountProvider: string | undefined) {
      if (!isConversationOperation(operation) || !keptByGateway(forwarded.params, request, mountProvider)) return undefined;
      return conversations.answer(operation, request, forwarded).then((answer) => Response.json(answer));
    },
  };
}
