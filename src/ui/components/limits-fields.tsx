import type { Budget, RateLimit } from "../api/types";
import { formatCost } from "../lib/format";
import { Checkbox, TextField } from "./fields";

/**
 * A budget and a rate limit as form text: empty means none. Budgets past the first (set through
 * the API) are not shown and are sent back as they were.
 */
export interface LimitsDraft {
  budget: string;
  budgetReset: string;
  budgetCalendar: boolean;
  otherBudgets: Budget[];
  tokens: string;
  tokensReset: string;
  requests: string;
  requestsReset: string;
}

export const limitsDraftOf = (budgets: Budget[] = [], rateLimit?: RateLimit | null): LimitsDraft => ({
  budget: budgets[0] ? String(budgets[0].max_limit) : "",
  budgetReset: budgets[0]?.reset_duration ?? "1M",
  budgetCalendar: budgets[0]?.calendar_aligned ?? false,
  otherBudgets: budgets.slice(1),
  tokens: rateLimit?.token_max_limit !== undefined ? String(rateLimit.token_max_limit) : "",
  tokensReset: rateLimit?.token_reset_duration ?? "1h",
  requests: rateLimit?.request_max_limit !== undefined ? String(rateLimit.request_max_limit) : "",
  requestsReset: rateLimit?.request_reset_duration ?? "1m",
});

export function limitsInput(draft: LimitsDraft): { budgets: Budget[]; rate_limit: RateLimit | null } {
  const first = draft.budget.trim() ? [{ max_limit: Number(draft.budget), reset_duration: draft.budgetReset.trim(), calendar_aligned: draft.budgetCalendar }] : [];
  const budgets = [...first, ...draft.otherBudgets];
  const rateLimit: RateLimit = {};
  if (draft.tokens.trim()) Object.assign(rateLimit, { token_max_limit: Number(draft.tokens), token_reset_duration: draft.tokensReset.trim() });
  if (draft.requests.trim()) Object.assign(rateLimit, { request_max_limit: Number(draft.requests), request_reset_duration: draft.requestsReset.trim() });
  return { budgets, rate_limit: Object.keys(rateLimit).length ? rateLimit : null };
}

const DURATION_HINT = "30s, 5m, 1h, 1d, 1w, 1M";

export function LimitsFields({ draft, onDraft, errorFor }: { draft: LimitsDraft; onDraft(draft: LimitsDraft): void; errorFor(field: string): string | undefined }) {
  const set = (name: keyof LimitsDraft) => (value: string | boolean) => onDraft({ ...draft, [name]: value });
  return (
    <fieldset class="grid-2">
      <legend>Budget and rate limit</legend>
      <TextField label="Budget (USD)" inputMode="decimal" value={draft.budget} onValue={set("budget")} hint="Empty for no budget." error={errorFor("budgets")} />
      <TextField label="Budget resets every" value={draft.budgetReset} onValue={set("budgetReset")} hint={DURATION_HINT} />
      <Checkbox label="Budget resets on calendar boundaries (UTC midnight, Monday, the 1st)" checked={draft.budgetCalendar} onChecked={set("budgetCalendar")} />
      <TextField label="Token limit" inputMode="numeric" value={draft.tokens} onValue={set("tokens")} hint="Empty for none." error={errorFor("rate_limit")} />
      <TextField label="Token limit resets every" value={draft.tokensReset} onValue={set("tokensReset")} hint={DURATION_HINT} />
      <TextField label="Request limit" inputMode="numeric" value={draft.requests} onValue={set("requests")} hint="Empty for none." />
      <TextField label="Request limit resets every" value={draft.requestsReset} onValue={set("requestsReset")} hint={DURATION_HINT} />
    </fieldset>
  );
}

export function limitsSummary(budgets: Budget[], rateLimit: RateLimit | null): string {
  const parts = budgets.map((budget) => `${formatCost(budget.max_limit)} / ${budget.reset_duration}`);
  if (rateLimit?.token_max_limit !== undefined) parts.push(`${rateLimit.token_max_limit} tokens / ${rateLimit.token_reset_duration}`);
  if (rateLimit?.request_max_limit !== undefined) parts.push(`${rateLimit.request_max_limit} requests / ${rateLimit.request_reset_duration}`);
  return parts.join(" · ") || "no limits";
}
