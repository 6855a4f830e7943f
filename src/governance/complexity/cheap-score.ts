import type { Signals } from "./signals";

/** A score from 0 (trivial) to 1 (needs the most reasoning); `decided` when the signals alone are evidence enough. */
export interface Verdict {
  score: number;
  decided: boolean;
}

const clamp01 = (value: number) => Math.min(1, Math.max(0, value));

/** 0 at 300 characters, 1 at 30,000: the log of the length between. */
const lengthPart = (characters: number) => clamp01(Math.log(Math.max(characters, 1) / 300) / Math.log(100));

/** The lowest score structure alone places a request at: code or a tool is at least medium work, an agent's many tools or turns complex. */
function structuralFloor(signals: Signals): number {
  if (signals.tools >= 5 || signals.depth >= 12) return 0.55;
  if (signals.codeBlocks > 0 || signals.tools > 0) return 0.3;
  return 0;
}

/**
 * Scores the signals: length, code, tools and depth by weight, no lower than their structure
 * places them. A reasoning effort the client asked for explicitly places the request at once:
 * `high` in the top tier, `medium` no lower than the middle. Below the middle the signals are
 * not evidence enough (short text says little of how hard it is): undecided, for the reference
 * prompts to place.
 */
export function cheapVerdict(signals: Signals): Verdict {
  if (signals.reasoning === "high") return { score: 0.9, decided: true };
  const weighted = 0.5 * lengthPart(signals.characters) + 0.2 * clamp01(signals.codeBlocks / 3) + 0.15 * clamp01(signals.tools / 8) + 0.15 * clamp01((signals.depth - 1) / 20);
  const score = Math.max(weighted, structuralFloor(signals), signals.reasoning === "medium" ? 0.5 : 0);
  return { score, decided: score >= 0.5 };
}
