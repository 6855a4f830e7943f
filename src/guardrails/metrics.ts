import type { GuardrailVerdict } from "../db/schema/types";

/** Verdicts and matches counted per guardrail, check, stage and action, for /metrics. */
export class GuardrailMetrics {
  private readonly counts = new Map<string, { labels: Record<"guardrail" | "check" | "stage" | "action", string>; verdicts: number; matches: number }>();

  count(verdicts: readonly GuardrailVerdict[]): void {
    for (const verdict of verdicts) {
      const key = `${verdict.guardrail}\u0000${verdict.check}\u0000${verdict.stage}\u0000${verdict.action}`;
      let entry = this.counts.get(key);
      if (!entry) {
        entry = { labels: { guardrail: verdict.guardrail, check: verdict.check, stage: verdict.stage, action: verdict.action }, verdicts: 0, matches: 0 };
        this.counts.set(key, entry);
      }
      entry.verdicts += 1;
      entry.matches += verdict.matches;
    }
  }

  verdicts() {
    return [...this.counts.values()].map(({ labels, verdicts }) => ({ labels, value: verdicts }));
  }

  matches() {
    return [...this.counts.values()].map(({ labels, matches }) => ({ labels, value: matches }));
  }
}
