import { useState } from "preact/hooks";
import type { Query } from "../api/client";
import { Checkbox, SelectField, TextField } from "../components/fields";
import type { Choice, LogChoices } from "./log-choices";

/** Every filter of the logs list, as URL query parameters (so a filtered view can be shared). */
export const FILTER_FIELDS = [
  "period",
  "start_time",
  "end_time",
  "providers",
  "regions",
  "models",
  "status",
  "status_codes",
  "error_types",
  "guardrails",
  "guardrail_actions",
  "origin",
  "virtual_key_ids",
  "team_ids",
  "customer_ids",
  "min_latency",
  "max_latency",
  "min_cost",
  "max_cost",
  "content_search",
  "min_tokens",
  "max_tokens",
  "aliases",
  "objects",
  "selected_key_ids",
  "conversation_ids",
  "user_ids",
  "business_unit_ids",
  "project_ids",
  "routing_rule_ids",
  "routing_engine_used",
  "stop_reasons",
  "tool_call_names",
  "cache_hit_types",
  "parent_request_id",
  "session_id",
  "request_id",
  "missing_cost_only",
  "sort_by",
  "order",
] as const;

/** The less common filters of spec 4.10, as plain text fields under "More filters" (lists are comma-separated). */
const MORE_TEXT_FILTERS: Array<[FilterName, string]> = [
  ["aliases", "Aliases"],
  ["objects", "Request types"],
  ["user_ids", "User ids"],
  ["business_unit_ids", "Business unit ids"],
  ["project_ids", "Project ids"],
  ["routing_rule_ids", "Routing rule ids"],
  ["routing_engine_used", "Routing engines"],
  ["stop_reasons", "Stop reasons"],
  ["tool_call_names", "Tool calls"],
  ["cache_hit_types", "Cache hits"],
  ["parent_request_id", "Parent request id"],
  ["session_id", "Session id"],
  ["conversation_ids", "Conversation ids"],
  ["request_id", "Request id"],
];
const METADATA_PREFIX = "metadata_";
/** The filters always shown; the others open under "More filters" (and are open when one is set). */
const FIRST_ROW = new Set<string>(["content_search", "period", "start_time", "end_time", "status", "status_codes", "error_types", "models", "virtual_key_ids", "team_ids", "customer_ids", "selected_key_ids", "guardrails", "guardrail_actions", "origin"]);
export type FilterName = (typeof FILTER_FIELDS)[number];
/** `metadata` holds `key=value` pairs, sent as `metadata_<key>=<value>`. */
export type Filters = Partial<Record<FilterName | "metadata", string>>;

export function filtersFrom(search: URLSearchParams): Filters {
  const filters: Filters = {};
  for (const name of FILTER_FIELDS) {
    const value = search.get(name);
    if (value) filters[name] = value;
  }
  const metadata = [...search.entries()].filter(([name]) => name.startsWith(METADATA_PREFIX)).map(([name, value]) => `${name.slice(METADATA_PREFIX.length)}=${value}`);
  if (metadata.length) filters.metadata = metadata.join(", ");
  return filters;
}

export function filterQuery({ metadata, ...filters }: Filters): Query {
  const pairs = (metadata ?? "").split(",").map((pair) => pair.split("=").map((part) => part.trim())).filter(([key, value]) => key && value);
  return { ...filters, ...Object.fromEntries(pairs.map(([key, value]) => [`${METADATA_PREFIX}${key}`, value])) };
}

/** The filters narrowing which rows match (sorting aside): what "delete all matching" removes. */
export const narrowingFilters = (filters: Filters) => [...FILTER_FIELDS, "metadata" as const].filter((name) => name !== "sort_by" && name !== "order" && filters[name]);

const PERIODS = [
  { value: "", label: "Any time" },
  { value: "15m", label: "Last 15 minutes" },
  { value: "1h", label: "Last hour" },
  { value: "24h", label: "Last 24 hours" },
  { value: "7d", label: "Last 7 days" },
  { value: "30d", label: "Last 30 days" },
  { value: "custom", label: "Custom range" },
];

const toLocalInput = (iso?: string) => (iso ? new Date(iso).toISOString().slice(0, 16) : "");
const fromLocalInput = (value: string) => (value ? new Date(`${value}:00Z`).toISOString() : "");

/** What a guardrail did to a request (its label avoids "Guardrail", the picker beside it). */
const GUARDRAIL_ACTIONS = [
  { value: "", label: "Any verdict" },
  { value: "block", label: "Blocked by a guardrail" },
  { value: "redact", label: "Redacted by a guardrail" },
  { value: "log", label: "Logged by a guardrail" },
];

const ORIGINS = [
  { value: "", label: "Client traffic" },
  { value: "gateway", label: "The gateway's own (Warp, guardrails)" },
  { value: "all", label: "Both" },
];

/** A filter picked by name; the id it stands for goes in the URL (one kept there that is not listed still shows). */
function Picker({ label, any, value, choices, onValue }: { label: string; any: string; value?: string; choices: Choice[]; onValue(value: string): void }) {
  const listed = !value || choices.some((choice) => choice.value === value);
  return <SelectField label={label} value={value ?? ""} onValue={onValue} options={[{ value: "", label: any }, ...choices, ...(listed ? [] : [{ value: value!, label: value! }])]} />;
}

/** The filter form: edits a draft and applies it on submit, so typing does not query on every key. */
export function FilterBar({ filters, choices, onApply }: { filters: Filters; choices?: LogChoices; onApply(filters: Filters): void }) {
  const [draft, setDraft] = useState<Filters>(filters);
  const [more, setMore] = useState(() => narrowingFilters(filters).some((name) => !FIRST_ROW.has(name)) || Boolean(filters.sort_by || filters.order));
  const custom = draft.period === "custom" || (!draft.period && (draft.start_time || draft.end_time));
  const set = (name: FilterName | "metadata") => (value: string) => setDraft((current) => ({ ...current, [name]: value || undefined }));
  const submit = (event: Event) => {
    event.preventDefault();
    const applied = { ...draft };
    if (applied.period === "custom") delete applied.period;
    else {
      delete applied.start_time;
      delete applied.end_time;
    }
    onApply(applied);
  };
  return (
    <form class="filters" role="search" aria-label="Log filters" onSubmit={submit}>
      <div class="filter-row">
        <TextField label="Search content" type="search" placeholder="words in requests and replies" value={draft.content_search ?? ""} onValue={set("content_search")} />
        <SelectField label="Time" value={custom ? "custom" : (draft.period ?? "")} onValue={set("period")} options={PERIODS} />
        {custom && (
          <>
            <TextField label="From (UTC)" type="datetime-local" value={toLocalInput(draft.start_time)} onValue={(value) => set("start_time")(fromLocalInput(value))} />
            <TextField label="To (UTC)" type="datetime-local" value={toLocalInput(draft.end_time)} onValue={(value) => set("end_time")(fromLocalInput(value))} />
          </>
        )}
        <SelectField
          label="Status"
          value={draft.status ?? ""}
          onValue={set("status")}
          options={[
            { value: "", label: "Any status" },
            { value: "success", label: "Success" },
            { value: "error", label: "Error" },
            { value: "processing", label: "Processing" },
          ]}
        />
        <TextField label="Status codes" placeholder="429, 500" value={draft.status_codes ?? ""} onValue={set("status_codes")} />
        <TextField label="Error types" placeholder="policy_rate_limited" value={draft.error_types ?? ""} onValue={set("error_types")} />
        <Picker label="Model" any="Any model" value={draft.models} choices={choices?.models ?? []} onValue={set("models")} />
      </div>
      <div class="filter-row">
        <Picker label="Virtual key" any="Any virtual key" value={draft.virtual_key_ids} choices={choices?.virtualKeys ?? []} onValue={set("virtual_key_ids")} />
        <Picker label="Team" any="Any team" value={draft.team_ids} choices={choices?.teams ?? []} onValue={set("team_ids")} />
        <Picker label="Customer" any="Any customer" value={draft.customer_ids} choices={choices?.customers ?? []} onValue={set("customer_ids")} />
        <Picker label="Provider key" any="Any provider key" value={draft.selected_key_ids} choices={choices?.providerKeys ?? []} onValue={set("selected_key_ids")} />
        <Picker label="Guardrail" any="Any or no guardrail" value={draft.guardrails} choices={choices?.guardrails ?? []} onValue={set("guardrails")} />
        <SelectField label="Verdict" value={draft.guardrail_actions ?? ""} onValue={set("guardrail_actions")} options={GUARDRAIL_ACTIONS} />
        <SelectField label="Calls" value={draft.origin ?? ""} onValue={set("origin")} options={ORIGINS} />
      </div>
      {more && (
        <div class="filter-row">
          <TextField label="Providers" placeholder="openai, anthropic" value={draft.providers ?? ""} onValue={set("providers")} />
          <TextField label="Regions" placeholder="eu, us" value={draft.regions ?? ""} onValue={set("regions")} />
          <TextField label="Min latency (ms)" inputMode="decimal" value={draft.min_latency ?? ""} onValue={set("min_latency")} />
          <TextField label="Max latency (ms)" inputMode="decimal" value={draft.max_latency ?? ""} onValue={set("max_latency")} />
          <TextField label="Min cost ($)" inputMode="decimal" value={draft.min_cost ?? ""} onValue={set("min_cost")} />
          <TextField label="Max cost ($)" inputMode="decimal" value={draft.max_cost ?? ""} onValue={set("max_cost")} />
          <TextField label="Min tokens" inputMode="numeric" value={draft.min_tokens ?? ""} onValue={set("min_tokens")} />
          <TextField label="Max tokens" inputMode="numeric" value={draft.max_tokens ?? ""} onValue={set("max_tokens")} />
          {MORE_TEXT_FILTERS.map(([name, label]) => (
            <TextField key={name} label={label} value={draft[name] ?? ""} onValue={set(name)} />
          ))}
          <TextField label="Metadata" placeholder="env=prod, team=search" value={draft.metadata ?? ""} onValue={set("metadata")} />
          <Checkbox label="Missing cost only" checked={draft.missing_cost_only === "true"} onChecked={(checked) => set("missing_cost_only")(checked ? "true" : "")} />
          <SelectField
            label="Sort by"
            value={draft.sort_by ?? "timestamp"}
            onValue={set("sort_by")}
            options={[
              { value: "timestamp", label: "Time" },
              { value: "latency", label: "Latency" },
              { value: "tokens", label: "Tokens" },
              { value: "cost", label: "Cost" },
            ]}
          />
          <SelectField
            label="Order"
            value={draft.order ?? "desc"}
            onValue={set("order")}
            options={[
              { value: "desc", label: "Descending" },
              { value: "asc", label: "Ascending" },
            ]}
          />
        </div>
      )}
      <div class="filter-actions">
        <button type="submit" class="primary">
          Apply filters
        </button>
        <button type="button" aria-expanded={more} onClick={() => setMore(!more)}>
          {more ? "Fewer filters" : "More filters"}
        </button>
        <button
          type="button"
          onClick={() => {
            setDraft({});
            onApply({});
          }}
        >
          Clear
        </button>
      </div>
    </form>
  );
}
