import type { OfferedTool } from "../tools/catalogue";
import type { ToolCall } from "../tools/executor";
import { type AnsweredCall, autoExecutableCalls, nextRoundBody, type OwnTools, parseCompletion, toolMessages } from "./agent-mode";
import { type AnthropicRound, anthropicNextRound, anthropicRound } from "./anthropic-rounds";

/** How agent mode reads the calls it runs from a reply, and writes the next round's request, in one wire format. */
export interface AgentRounds<R extends { calls: ToolCall[] }> {
  /** The reply's calls, when the gateway runs every one of them. */
  pending(text: string, offered: readonly OfferedTool[], own?: OwnTools): R | undefined;
  next(body: Record<string, unknown>, round: R, answered: readonly AnsweredCall[]): Record<string, unknown>;
}

type OpenAiRound = NonNullable<ReturnType<typeof autoExecutableCalls>>;

export const OPENAI_ROUNDS: AgentRounds<OpenAiRound> = {
  pending: (text, offered, own) => autoExecutableCalls(parseCompletion(text) ?? {}, offered, own),
  next: (body, round, answered) => nextRoundBody(body, round.message, toolMessages(answered)),
};

export const ANTHROPIC_ROUNDS: AgentRounds<AnthropicRound> = { pending: anthropicRound, next: anthropicNextRound };
