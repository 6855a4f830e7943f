import type { FinishReason } from "../../canonical";
import type { StopReason } from "./wire";

const TO_FINISH: Record<StopReason, FinishReason> = {
  end_turn: "stop",
  stop_sequence: "stop",
  max_tokens: "length",
  tool_use: "tool_calls",
  pause_turn: "pause_turn",
  refusal: "refusal",
  model_context_window_exceeded: "model_context_window_exceeded",
};

export const finishReasonOf = (stopReason: StopReason | null | undefined): FinishReason => (stopReason ? (TO_FINISH[stopReason] ?? "stop") : null);

/** `stop` splits in two on the way back: a turn ended by a stop sequence names it. */
export function stopReasonOf(finish: FinishReason | undefined, stopSequence: string | null | undefined): StopReason | null {
  switch (finish) {
    case "stop":
      return stopSequence ? "stop_sequence" : "end_turn";
    case "length":
      return "max_tokens";
    case "tool_calls":
      return "tool_use";
    case "content_filter":
      return "refusal";
    case "pause_turn":
    case "refusal":
    case "model_context_window_exceeded":
      return finish;
    default:
      return null;
  }
}
