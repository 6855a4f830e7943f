import { principalOf } from "../../access";
import { holds } from "../../access/principal";
import type { BudgetForecast } from "../../budget-forecast/schema";

/** The projected exhaustion of the budgets `wanted` picks; given by the composition root (the alerts area computes it). */
export type ForecastsOf = (wanted: (budget: { level: string; owner_id: string }) => boolean) => Promise<BudgetForecast[]>;

/** Forecasts read the request log's spend: only a caller who may read alerts, as GET /api/alerts/forecast asks, gets them; others an empty list. */
export const forecastsReadableBy = (forecastsOf: ForecastsOf) => (request: Request): ForecastsOf => (holds(principalOf(request), "Alerts:View") ? forecastsOf : async () => []);

type Owner = "team" | "customer" | "virtual_key";

/** A key's forecasts include its provider configs' (`<virtual key id>/<provider>`). */
const LEVELS: Record<Owner, string[]> = { team: ["team"], customer: ["customer"], virtual_key: ["virtual_key", "provider_config"] };
const rowIdOf = (budget: { level: string; owner_id: string }) => (budget.level === "provider_config" ? budget.owner_id.split("/")[0] : budget.owner_id);

/** Each row with the forecasts of its budgets, read once for all the rows. */
export async function withForecasts<Row extends { id: string }>(owner: Owner, rows: Row[], forecastsOf: ForecastsOf): Promise<Array<Row & { forecasts: BudgetForecast[] }>> {
  const ids = new Set(rows.map((row) => row.id));
  const owned = (budget: { level: string; owner_id: string }) => LEVELS[owner].includes(budget.level) && ids.has(rowIdOf(budget) ?? "");
  const found = ids.size === 0 ? [] : await forecastsOf(owned);
  return rows.map((row) => ({ ...row, forecasts: found.filter((forecast) => rowIdOf(forecast) === row.id) }));
}

/** One row with the forecasts of its budgets. */
export async function withForecastsOf<Row extends { id: string }>(owner: Owner, row: Row, forecastsOf: ForecastsOf) {
  const [withThem] = await withForecasts(owner, [row], forecastsOf);
  return withThem!;
}
