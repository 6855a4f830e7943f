import type { ChatMessage, ToolCall, Usage } from "../../inference/canonical";
import type { Inference } from "../../inference/handle";
import type { WarpStoredMessage } from "../../db/schema/warp";
import type { StoredWarpConfig } from "../config/schema";
import type { ToolSet } from "../tools/toolset";
import type { EmitChatEvent } from "./events";
import type { ChosenModel } from "./model-choice";
import { streamModelTurn } from "./model-turn";
import { systemPrompt } from "./system-prompt";

export interface AgentRun {
  inference: Inference;
  config: StoredWarpConfig;
  model: ChosenModel;
  tools: ToolSet;
  /** The conversation so far: complete turns only. */
  history: readonly WarpStoredMessage[];
  question: string;
  clock: () => Date;
  signal: AbortSignal;
}

export interface AgentResult {
  /** This turn's messages, the question first: what the conversation saves once it succeeded. */
  messages: WarpStoredMessage[];
  /** The model's last finish reason, `max_iterations` when the tool rounds ran out, `error` on failure. */
  finishReason: string;
  /** Rounds of tool calls made. */
  iterations: number;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  /** Why the turn ended early: a model call failed, timed out, or the client left. */
  error?: unknown;
}

const assistantMessage = (content: string, calls: ToolCall[]): WarpStoredMessage => ({ role: "assistant", content: content || null, ...(calls.length > 0 ? { tool_calls: calls } : {}) });

function addUsage(total: AgentResult["usage"], usage: Usage | undefined) {
  if (!usage) return;
  total.prompt_tokens += usage.prompt_tokens;
  total.completion_tokens += usage.completion_tokens;
  total.total_tokens += usage.total_tokens;
}

/** Runs one round of tool calls in order, telling the client about each, and answers the tool messages. */
async function runToolCalls(run: AgentRun, calls: ToolCall[], iteration: number, emit: EmitChatEvent): Promise<WarpStoredMessage[]> {
  const results: WarpStoredMessage[] = [];
  for (const call of calls) {
    const { name, arguments: args } = call.function;
    emit("tool_call_start", { id: call.id, name, arguments: args, iteration });
    const outcome = await run.tools.run(name, args, { now: run.clock(), config: run.config, signal: run.signal });
    emit("tool_call_end", outcome.ok ? { id: call.id, name, ok: true, result: outcome.result, truncated: outcome.truncated } : { id: call.id, name, ok: false, error: outcome.error });
    results.push({ role: "tool", tool_call_id: call.id, content: outcome.output });
  }
  return results;
}

/**
 * The agent's loop: ask the model; while it calls tools and rounds remain (max_iterations), run
 * them and feed the results back; once the rounds are used up, ask once more with tools
 * switched off so it answers with what it found. Each model call is bounded by
 * request_timeout_seconds. A failure ends the turn and is returned with what was done so far.
 */
export async function runAgent(run: AgentRun, emit: EmitChatEvent): Promise<AgentResult> {
  const { config } = run;
  const system: ChatMessage = { role: "system", content: systemPrompt(config.system_prompt_suffix, run.clock()) };
  const result: AgentResult = { messages: [{ role: "user", content: run.question }], finishReason: "error", iterations: 0, usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 } };
  const tools = run.tools.definitions();
  try {
    for (;;) {
      const roundsUsedUp = result.iterations >= config.max_iterations;
      const turn = await streamModelTurn(
        run.inference,
        { model: run.model, messages: [system, ...run.history, ...result.messages], tools, toolChoice: roundsUsedUp ? "none" : "auto", timeoutSeconds: config.request_timeout_seconds, signal: run.signal },
        (content) => emit("delta", { content }),
      );
      addUsage(result.usage, turn.usage);
      const calls = roundsUsedUp ? [] : turn.toolCalls;
      result.messages.push(assistantMessage(turn.content, calls));
      if (calls.length === 0) return { ...result, finishReason: roundsUsedUp ? "max_iterations" : (turn.finishReason ?? "stop") };
      result.iterations++;
      result.messages.push(...(await runToolCalls(run, calls, result.iterations, emit)));
    }
  } catch (error) {
    return { ...result, error };
  }
}
