import { conversationIdOf } from "../../inference/conversation-id";
import type { RequestContext } from "../../inference/hooks";
import type { ProviderStore } from "../../provider-registry/store";
import type { Operation } from "../../upstream/operations";
import { askedText, classify, type Complexity, tierOf } from "./classify";
import type { ConversationFloor } from "./conversation-floor";
import { type AskModel, CLASSIFIER_CALLER, scoreByModel } from "./model-classifier";
import type { ComplexityStore } from "./store";

export interface ComplexityDeps {
  complexity: ComplexityStore;
  floor: ConversationFloor;
  providers: ProviderStore;
  /** Calls a classifier model through the pipeline; set once inference exists. */
  askModel?: AskModel;
}

/** The operations whose requests are conversations to classify. */
const CLASSIFIED: ReadonlySet<Operation> = new Set(["chat", "responses", "text_completion"]);

const classifiable = (context: RequestContext) => CLASSIFIED.has(context.operation) && context.internalCaller !== CLASSIFIER_CALLER;

/**
 * Records a request's classification, no lower than the highest score its conversation (of one
 * virtual key) reached on this node, which it then raises.
 */
function record({ complexity, floor, providers }: ComplexityDeps, context: RequestContext, virtualKeyId: string, score: number): RequestContext["complexity"] {
  const conversation = (context.conversationId ??= conversationIdOf(context.headers, context.body, (id) => providers.conversations.conversationOfResponse(id)));
  // Per virtual key: two callers whose chats open alike (one system prompt, "hi") are not one conversation.
  const floored = conversation === undefined ? score : floor.raise(`${virtualKeyId}\n${conversation}`, score);
  context.complexity = { tier: tierOf(floored, complexity.model.tiers), score: floored };
  return context.complexity;
}

/**
 * The complexity of a request, computed once, when a routing rule first reads it, and recorded
 * on the request for its log row. Other operations than chat have none: their tier reads as ""
 * and score as 0.
 */
export function complexityOf(deps: ComplexityDeps, context: RequestContext, virtualKeyId = ""): RequestContext["complexity"] {
  if (context.complexity !== undefined || !classifiable(context)) return context.complexity;
  return record(deps, context, virtualKeyId, classify(context.body, deps.complexity.model).score);
}

/**
 * With a classifier model configured, classifies before the rules run, so a request the signals
 * and references leave open can wait for the model's answer; undefined when there is nothing to
 * wait for (the rules' reading classifies as usual). A classifier that fails or names no tier
 * leaves the signals' score.
 */
export function classifyByModelFirst(deps: ComplexityDeps, context: RequestContext, virtualKeyId = ""): Promise<void> | undefined {
  const model = deps.complexity.classifierModel;
  if (!model || !deps.askModel || context.complexity !== undefined || !classifiable(context)) return undefined;
  const classified: Complexity = classify(context.body, deps.complexity.model);
  if (!classified.open) return void record(deps, context, virtualKeyId, classified.score);
  return scoreByModel(deps.askModel, model, deps.complexity.model.tiers, askedText(context.body))
    .catch((error) => void console.error(`governance: the complexity classifier '${model}' did not answer: ${error instanceof Error ? error.message : error}`))
    .then((score) => void record(deps, context, virtualKeyId, score ?? classified.score));
}
