import { cheapVerdict } from "./cheap-score";
import type { ReferenceSet } from "./reference-set";
import { signalsOf } from "./signals";

/** A request's tier, its score from 0 to 1, and what placed it. */
export interface Complexity {
  tier: string;
  score: number;
  by: "signals" | "references";
  /** Left open: the signals did not decide and no reference resembles it (a classifier model may then be asked). */
  open?: boolean;
}

/** The tiers, lowest first, and the reference prompts that place what the signals leave undecided. */
export interface ComplexityModel {
  tiers: readonly string[];
  references: ReferenceSet;
}

/** The tier a score falls in: tier i of n holds scores from i/n up to (i + 1)/n. */
export const tierIndexOf = (score: number, tierCount: number) => Math.min(tierCount - 1, Math.max(0, Math.floor(score * tierCount)));

const rounded = (score: number) => Math.round(score * 1000) / 1000;

/**
 * Classifies a chat request: by its cheap signals where they decide (length, code, tools,
 * depth, an explicit reasoning effort), else by the nearest reference prompts to its last user
 * turn where they place it higher than the signals do, else by the signals all the same.
 */
export function classify(body: Record<string, unknown>, model: ComplexityModel): Complexity {
  const signals = signalsOf(body);
  const verdict = cheapVerdict(signals);
  const placed = verdict.decided ? undefined : model.references.place(signals.lastUserText);
  const score = rounded(Math.max(placed?.score ?? 0, verdict.score));
  return { tier: tierOf(score, model.tiers), score, by: placed ? "references" : "signals", open: !verdict.decided && !placed };
}

export const tierOf = (score: number, tiers: readonly string[]) => tiers[tierIndexOf(score, tiers.length)]!;

/** The last user turn's text, which a classifier model is asked about. */
export const askedText = (body: Record<string, unknown>) => signalsOf(body).lastUserText;
