import { type Static, Type as t } from "@sinclair/typebox";
import { Timestamp } from "../http/replies";

const WindowForecast = t.Object({
  spend_per_hour: t.Number({ description: "USD per hour over the window." }),
  exhausted_at: t.Union([Timestamp, t.Null()], { description: "When the budget runs out at that rate; null: nothing was spent, or it resets first." }),
});

/** One budget's projected exhaustion at the last hour's (short) and the last day's (long) rate of spend. */
export const BudgetForecast = t.Object(
  {
    level: t.String(),
    owner_id: t.String(),
    owner_name: t.String(),
    max_limit: t.Number(),
    reset_duration: t.String(),
    current_usage: t.Number(),
    resets_at: Timestamp,
    short_window: WindowForecast,
    long_window: WindowForecast,
    hours_left: t.Union([t.Number(), t.Null()], { description: "Hours until the budget runs out at the sooner of the two rates; null: not before it resets." }),
  },
  { title: "BudgetForecast" },
);
export type BudgetForecast = Static<typeof BudgetForecast>;
