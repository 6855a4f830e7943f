import type { BudgetForecast } from "../api/types";
import { formatTime } from "../lib/format";

/** When the budget runs out at the current rate (the sooner of the last hour's and the last day's), if before it resets. */
export function ExhaustionForecast({ forecast }: { forecast?: BudgetForecast }) {
  const at = [forecast?.short_window.exhausted_at, forecast?.long_window.exhausted_at].filter((when): when is string => !!when).sort()[0];
  return at ? <div class="muted small">Runs out {formatTime(at)} at the current rate</div> : null;
}
