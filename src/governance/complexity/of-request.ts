import { conversationIdOf } from "../../inference/conversation-id";
import type { RequestContext } from "../../inference/hooks";
import type { ProviderStore } from "../../provider-registry/store";
import type { Operation } from "../../upstream/operations";
import { classify, tierIndexOf } from "./classify";
import type { ConversationFloor } from "./conversation-floor";
import type { ComplexityStore } from "./store";

export interface ComplexityDeps {
  complexity: ComplexityStore;
  floor: ConversationFloor;
  providers: ProviderStore;
}

/** The operations whose requests are conversations to classify. */
const CLASSIFIED: ReadonlySet<Operation> = new Set(["chat", "responses", "text_completion"]);

/**
 * The complexity of a request, computed once, when a routing rule first reads it, and recorded
 * on the request for its log row. A conversation (of one virtual key) never drops below the
 * highest score it reached on this node. Other operations than chat have none: their tier reads as "" and score as 0.
 */
export function complexityOf({ complexity, floor, providers }: ComplexityDeps, context: RequestContext, virtualKeyId = ""): RequestContext["complexity"] {
  if (context.complexity !== undefined || !CLASSIFIED.has(context.operation)) return context.complexity;
  const model = complexity.model;
  const classified = classify(context.body, model);
  const conversation = (context.conversationId ??= conversationIdOf(context.headers, context.body, (id) => providers.conversations.conversationOfResponse(id)));
  // Per virtual key: two callers whose chats open alike (one system prompt, "hi") are not one conversation.
  const score = conversation === undefined ? classified.score : floor.raise(`${virtualKeyId}\n${conversation}`, classified.score);
  context.complexity = { tier: model.tiers[tierIndexOf(score, model.tiers.length)]!, score };
  return context.complexity;
}
