import { usage } from "../../api/endpoints";
import { Empty, ErrorState, Loading } from "../../components/states";
import { UsageBar } from "../../components/widgets";
import { formatCost, formatCount, formatDuration, formatLevel } from "../../lib/format";
import { useResource } from "../../lib/use-resource";
import { useCan } from "../../session";

type RateRow = Record<string, string | number>;

function RateLimitRow({ row }: { row: RateRow }) {
  const owner = `${formatLevel(String(row.level))} ${row.owner_name}`;
  return (
    <section class="card" aria-label={`Rate limit of ${owner}`}>
      <h3>{owner}</h3>
      {row.token_max_limit !== undefined && <UsageBar label={`Tokens of ${row.owner_name} per ${formatDuration(String(row.token_reset_duration))}`} used={Number(row.token_current_usage)} max={Number(row.token_max_limit)} resetsAt={String(row.token_resets_at)} format={formatCount} />}
      {row.request_max_limit !== undefined && (
        <UsageBar label={`Requests of ${row.owner_name} per ${formatDuration(String(row.request_reset_duration))}`} used={Number(row.request_current_usage)} max={Number(row.request_max_limit)} resetsAt={String(row.request_resets_at)} format={formatCount} />
      )}
    </section>
  );
}

/** Every budget and rate limit with what its current window used and when it resets. */
export function LimitsTab() {
  const can = useCan();
  const data = useResource(() => Promise.all([usage.budgets(), can("RateLimits:View") ? usage.rateLimits() : Promise.resolve([])]), []);
  if (data.error) return <ErrorState error={data.error} retry={data.reload} />;
  if (!data.data) return <Loading />;
  const [budgets, rateLimits] = data.data;
  if (budgets.length === 0 && rateLimits.length === 0) {
    return (
      <Empty title="No budget or rate limit yet">
        <p>Set them on a virtual key, a team or a customer (Edit, then Budget and rate limit); their usage shows here with the time each window resets.</p>
      </Empty>
    );
  }
  return (
    <div class="limits">
      <h2>Budgets</h2>
      {budgets.length === 0 && <p class="muted">No budget is set.</p>}
      <div class="grid-2">
        {budgets.map((budget) => (
          <section class="card" key={`${budget.level}:${budget.owner_id}:${budget.reset_duration}`} aria-label={`Budget of ${formatLevel(budget.level)} ${budget.owner_name}`}>
            <h3>
              {formatLevel(budget.level)} {budget.owner_name}
            </h3>
            <UsageBar label={`Spend of ${budget.owner_name} per ${formatDuration(budget.reset_duration)}`} used={budget.current_usage} max={budget.max_limit} resetsAt={budget.resets_at} format={formatCost} />
          </section>
        ))}
      </div>
      <h2>Rate limits</h2>
      {rateLimits.length === 0 && <p class="muted">No rate limit is set.</p>}
      <div class="grid-2">
        {rateLimits.map((row) => (
          <RateLimitRow key={`${row.level}:${row.owner_id}`} row={row} />
        ))}
      </div>
    </div>
  );
}
