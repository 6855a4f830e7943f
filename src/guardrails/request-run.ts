import type { Stage } from "./body-text";
import type { CheckInput, CompiledCheck } from "./checks";
import type { Span } from "./matchers";
import { normalisedText, originalSpan } from "./normalised-text";
import { PLACEHOLDER, Pseudonyms } from "./pseudonyms";
import type { GuardrailVerdict } from "../db/schema/types";

export type MatchCheck = Extract<CompiledCheck, { kind: "match" }>;
export type VerdictCheck = Extract<CompiledCheck, { kind: "verdict" }>;

export interface Found extends Span {
  check: MatchCheck;
  /** A match split across strings: its whole value (on its first piece), or that this piece only continues it (replaced by nothing, not counted). */
  whole?: string;
  continuation?: boolean;
}

/** The checks that apply to one request, split by stage and kind. */
export interface AppliedChecks {
  restoreRedacted: boolean;
  matches: Record<Stage, MatchCheck[]>;
  verdicts: Record<Stage, VerdictCheck[]>;
}

/** Earliest first; of two overlapping matches the earlier (then the longer) wins. */
function nonOverlapping(found: Found[]): Found[] {
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: Found[] = [];
  let end = -1;
  for (const item of found) {
    if (item.start < end) continue;
    kept.push(item);
    end = item.end;
  }
  return kept;
}

/**
 * What guardrails did to one request: its placeholders (consistent across the input and the
 * reply) and its verdicts, summed per guardrail, check, stage and action for the log row.
 */
export class RequestRun {
  readonly pseudonyms = new Pseudonyms();
  private readonly tallies = new Map<string, GuardrailVerdict>();
  /** The first blocking check, once one fired. */
  blockedBy?: { check: CompiledCheck; stage: Stage };

  constructor(readonly applied: AppliedChecks) {}

  get verdicts(): GuardrailVerdict[] {
    return [...this.tallies.values()];
  }

  private tally(check: CompiledCheck, stage: Stage, matches: number): void {
    const key = `${check.guardrail}\u0000${check.name}\u0000${stage}\u0000${check.action}`;
    const tally = this.tallies.get(key);
    if (tally) tally.matches += matches;
    else this.tallies.set(key, { guardrail: check.guardrail, check: check.name, stage, action: check.action, matches });
    if (check.action === "block") this.blockedBy ??= { check, stage };
  }

  /** The matches of `stage`'s pattern checks in `text`, recorded. */
  find(text: string, stage: Stage): Found[] {
    const view = normalisedText(text);
    const found: Found[] = [];
    for (const check of this.applied.matches[stage]) {
      for (const span of check.matcher.find(view?.text ?? text)) found.push({ ...(view ? originalSpan(view, span) : span), check });
    }
    return nonOverlapping(found);
  }

  /**
   * `text` with redacting checks' matches replaced by placeholders and, for a reply, the input's
   * placeholders put back when the policy says so. Records every match; a blocking match sets `blockedBy`.
   */
  rewrite(text: string, stage: Stage, found: Found[] = this.find(text, stage)): string {
    const counts = new Map<MatchCheck, number>();
    for (const item of found) if (!item.continuation) counts.set(item.check, (counts.get(item.check) ?? 0) + 1);
    for (const [check, count] of counts) this.tally(check, stage, count);
    const restoring = stage === "output" && this.applied.restoreRedacted && this.pseudonyms.hasRestorable;
    if (!found.some((item) => item.check.action === "redact") && !restoring) return text;
    let result = "";
    let at = 0;
    for (const item of found) {
      if (item.check.action !== "redact") continue;
      const placeholder = item.continuation ? "" : this.pseudonyms.placeholderFor(item.check.matcher.label, item.whole ?? text.slice(item.start, item.end), stage === "input");
      result += this.restored(text.slice(at, item.start), restoring) + placeholder;
      at = item.end;
    }
    return result + this.restored(text.slice(at), restoring);
  }

  /** `text` with what the redacting and blocking checks of `stage` match replaced by placeholders, nothing recorded: what a log may keep. */
  scrub(text: string, stage: Stage): string {
    let result = "";
    let at = 0;
    for (const item of this.find(text, stage)) {
      if (item.check.action === "log") continue;
      result += text.slice(at, item.start) + this.pseudonyms.placeholderFor(item.check.matcher.label, text.slice(item.start, item.end), false);
      at = item.end;
    }
    return result + text.slice(at);
  }

  private restored(text: string, restoring: boolean): string {
    return restoring ? text.replace(PLACEHOLDER, (placeholder) => this.pseudonyms.valueOf(placeholder) ?? placeholder) : text;
  }

  /** Runs `stage`'s verdict checks on the whole text, all at once (remote ones in parallel), and records those that fired. */
  async judge(stage: Stage, input: Omit<CheckInput, "stage">): Promise<void> {
    const checks = this.applied.verdicts[stage];
    if (checks.length === 0) return;
    const fired = await Promise.all(checks.map((check) => check.judge({ ...input, stage })));
    checks.forEach((check, index) => {
      if (fired[index]) this.tally(check, stage, 1);
    });
  }
}
