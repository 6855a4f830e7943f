import type { SessionBudget } from "../../db/schema/types";
import { conversationIdOf } from "../../inference/conversation-id";
import type { Usage } from "../../inference/canonical";
import type { RequestContext, StreamSoFar } from "../../inference/hooks";
import type { ProviderStore } from "../../provider-registry/store";
import { REQUEST_TYPE } from "../../upstream/operations";
import type { Caller } from "../caller";
import { costOf } from "../pricing/cost";
import type { PriceBook } from "../pricing/price-book";
import { inputTokensOf } from "./estimate-cost";
import { reachedLimit, sessionBudgetExceeded, type SessionSpend } from "./session-spend";

/** Characters to an output token while a stream has not said its usage yet (English and code run near four). */
const CHARACTERS_PER_OUTPUT_TOKEN = 4;

interface SessionDeps {
  providers: ProviderStore;
  prices: PriceBook;
  sessions: SessionSpend;
}

/** Tokens and cost a stream has come to so far: its reported usage where it has one, else its input by length and its output by characters. */
function streamedSoFar(context: RequestContext, caller: Caller, prices: PriceBook, sofar: StreamSoFar): Streamed {
  const input = sofar.usage?.prompt_tokens || inputTokensOf(context.body);
  const output = Math.max(sofar.usage?.completion_tokens ?? 0, Math.ceil(sofar.outputCharacters / CHARACTERS_PER_OUTPUT_TOKEN));
  const target = context.targets[0];
  const price = target && prices.priceOf({ provider: target.provider, model: target.model, requestType: REQUEST_TYPE[context.operation], virtualKeyId: caller.key.id });
  const usage = { prompt_tokens: input, completion_tokens: output, total_tokens: input + output };
  return { cost: price ? costOf({ usage }, price) : 0, usage };
}

/** What a stream had come to when its session's budget cut it: charged as it was counted, so the session stays past its limit. */
export interface Streamed {
  usage: Usage;
  cost: number;
}

/** The session a call is charged to, and, once its stream was cut, what it had streamed. */
export interface SessionCharge {
  session: string;
  cut?: Streamed;
}

/**
 * Holds a spending call of a key with `session_budgets` to its session's budget: names the
 * session (its conversation id, recorded on the request), refuses it with 402 when the session
 * already reached a limit, and sets the cutoff that ends its stream at the chunk that reaches
 * one. Answers the session, for settle to charge; undefined when the request names none. On a
 * database other nodes share, what they charged the session is read first.
 */
export function admitToSession(deps: SessionDeps, context: RequestContext, caller: Caller): SessionCharge | undefined | Promise<SessionCharge | undefined> {
  const budget = caller.key.sessionBudgets;
  if (!budget) return undefined;
  const session = conversationIdOf(context.headers, context.body, (id) => deps.providers.conversations.conversationOfResponse(id));
  if (session === undefined) return undefined;
  context.conversationId = session;
  const refreshing = deps.sessions.refresh(caller.key.id, session);
  return refreshing ? refreshing.then(() => holdToBudget(deps, context, caller, budget, session)) : holdToBudget(deps, context, caller, budget, session);
}

function holdToBudget({ prices, sessions }: SessionDeps, context: RequestContext, caller: Caller, budget: SessionBudget, session: string): SessionCharge {
  const spentNow = () => sessions.of(caller.key.id, session) ?? { cost: 0, tokens: 0 };
  const spent = spentNow();
  const reached = reachedLimit(budget, spent.cost, spent.tokens);
  if (reached) throw sessionBudgetExceeded(session, budget, reached, spent.cost, spent.tokens);
  const charge: SessionCharge = { session };
  context.streamCutoff = (sofar) => {
    const streamed = streamedSoFar(context, caller, prices, sofar);
    // Read again: another request of the session may have been charged since this one was admitted.
    const spent = spentNow();
    const cost = spent.cost + streamed.cost;
    const tokens = spent.tokens + streamed.usage.total_tokens;
    const limit = reachedLimit(budget, cost, tokens);
    if (!limit) return undefined;
    charge.cut = streamed;
    return sessionBudgetExceeded(session, budget, limit, cost, tokens);
  };
  return charge;
}
