import { useEffect, useState } from "preact/hooks";
import { alerts } from "../api/endpoints";
import type { AlertChannel, AlertChannelInput, AlertChannelType, AlertRule, AlertScope, AlertSeverity } from "../api/types";
import { useFeedback } from "../components/feedback";
import { Checkbox, SelectField, TextField } from "../components/fields";
import { PageHeader } from "../components/layout";
import { Panel } from "../components/panel";
import { Empty, ErrorState, Loading } from "../components/states";
import { TableHead } from "../components/table-head";
import { DeleteButton } from "../components/widgets";
import { formatTime } from "../lib/format";
import { useResource } from "../lib/use-resource";
import { messageOf, useSave } from "../lib/use-save";
import { useCan } from "../session";

const REFRESH_MS = 3000;
const SCOPES: AlertScope[] = ["global", "provider", "model", "virtual_key", "team", "customer"];
const SEVERITIES: AlertSeverity[] = ["info", "warning", "critical"];
const CHANNEL_TYPES: Array<{ value: AlertChannelType; label: string }> = [
  { value: "slack", label: "Slack" },
  { value: "teams", label: "Microsoft Teams" },
  { value: "pagerduty", label: "PagerDuty" },
  { value: "email", label: "Email (SMTP)" },
  { value: "webhook", label: "Webhook endpoint" },
];
const STATE_BADGE = { ok: "ok", pending: "neutral", firing: "bad", resolved: "ok" } as const;

const figuresText = (figures: Record<string, number>) =>
  Object.entries(figures)
    .map(([name, value]) => `${name} = ${Number.isInteger(value) || value > 1e15 ? (value > 1e15 ? "never" : value) : value.toPrecision(3)}`)
    .join(", ");

function RuleForm({ channels, onClose, reload }: { channels: AlertChannel[]; onClose(): void; reload(): void }) {
  const [name, setName] = useState("");
  const [condition, setCondition] = useState("requests > 20 && error_rate > 0.05");
  const [window, setWindow] = useState("5m");
  const [forSeconds, setForSeconds] = useState("0");
  const [severity, setSeverity] = useState<AlertSeverity>("warning");
  const [scope, setScope] = useState<AlertScope>("global");
  const [scopeId, setScopeId] = useState("");
  const [chosen, setChosen] = useState<string[]>([]);
  const { save, errorFor } = useSave(reload);
  const submit = async (event: Event) => {
    event.preventDefault();
    const input = { name: name.trim(), condition, window, for_seconds: Number(forSeconds), severity, scope, scope_id: scope === "global" ? null : scopeId.trim(), channel_ids: chosen };
    if (await save(() => alerts.createRule(input), `Rule ${input.name} created`)) onClose();
  };
  return (
    <Panel title="Add an alert rule" onClose={onClose}>
      <form onSubmit={submit}>
        <TextField label="Name" required value={name} onValue={setName} error={errorFor("name")} />
        <TextField label="Condition" required value={condition} onValue={setCondition} error={errorFor("condition")} hint="CEL over the figures: requests, error_rate, p99_latency_ms, cost, budget_used_fraction, projected_exhaustion_hours..." />
        <TextField label="Window" value={window} onValue={setWindow} error={errorFor("window")} hint="The figures are read over it: 5m, 1h, 1d." />
        <TextField label="Holds for (seconds)" inputMode="numeric" value={forSeconds} onValue={setForSeconds} error={errorFor("for_seconds")} />
        <SelectField label="Severity" value={severity} onValue={(value) => setSeverity(value as AlertSeverity)} options={SEVERITIES} />
        <SelectField label="Scope" value={scope} onValue={(value) => setScope(value as AlertScope)} options={SCOPES.map((value) => ({ value, label: value.replace("_", " ") }))} />
        {scope !== "global" && <TextField label="Scope id" required value={scopeId} onValue={setScopeId} error={errorFor("scope_id")} hint="The provider or model name, or the key's, team's or customer's id." />}
        <fieldset>
          <legend>Channels</legend>
          {channels.length === 0 && <p class="muted">No channel yet: add one below to be notified.</p>}
          {channels.map((channel) => (
            <Checkbox key={channel.id} label={channel.name} checked={chosen.includes(channel.id)} onChecked={(checked) => setChosen(checked ? [...chosen, channel.id] : chosen.filter((id) => id !== channel.id))} />
          ))}
        </fieldset>
        <div class="actions">
          <button type="submit" class="primary">
            Add rule
          </button>
        </div>
      </form>
    </Panel>
  );
}

function channelInput(type: AlertChannelType, name: string, fields: Record<string, string>, privateNetwork: boolean): AlertChannelInput {
  const base = { name: name.trim(), type, allow_private_network: privateNetwork };
  if (type === "slack" || type === "teams") return { ...base, webhook_url: fields.url };
  if (type === "pagerduty") return { ...base, routing_key: fields.key, ...(fields.url ? { events_url: fields.url } : {}) };
  if (type === "webhook") return { ...base, endpoint_id: fields.endpoint };
  const to = (fields.to ?? "").split(",").map((address) => address.trim()).filter(Boolean);
  return { ...base, smtp: { host: fields.host ?? "", port: Number(fields.port || 587), username: fields.username || undefined, password: fields.password || undefined, from: fields.from ?? "", to } };
}

function ChannelForm({ onClose, reload }: { onClose(): void; reload(): void }) {
  const [name, setName] = useState("");
  const [type, setType] = useState<AlertChannelType>("slack");
  const [fields, setFields] = useState<Record<string, string>>({});
  const [privateNetwork, setPrivateNetwork] = useState(false);
  const { save, errorFor } = useSave(reload);
  const field = (key: string, label: string, extra: { hint?: string; type?: "password" | "url"; required?: boolean; error?: string } = {}) => (
    <TextField label={label} value={fields[key] ?? ""} onValue={(value) => setFields({ ...fields, [key]: value })} {...extra} />
  );
  const submit = async (event: Event) => {
    event.preventDefault();
    if (await save(() => alerts.createChannel(channelInput(type, name, fields, privateNetwork)), `Channel ${name.trim()} added`)) onClose();
  };
  return (
    <Panel title="Add a channel" onClose={onClose}>
      <form onSubmit={submit}>
        <TextField label="Name" required value={name} onValue={setName} error={errorFor("name")} />
        <SelectField label="Type" value={type} onValue={(value) => setType(value as AlertChannelType)} options={CHANNEL_TYPES} />
        {(type === "slack" || type === "teams") && field("url", "Webhook URL", { type: "url", required: true, error: errorFor("webhook_url"), hint: "Kept encrypted; never shown again." })}
        {type === "pagerduty" && field("key", "Routing key", { required: true, type: "password", error: errorFor("routing_key") })}
        {type === "pagerduty" && field("url", "Events URL", { type: "url", error: errorFor("events_url"), hint: "Default: PagerDuty's Events API v2." })}
        {type === "webhook" && field("endpoint", "Webhook endpoint id", { required: true, error: errorFor("endpoint_id") })}
        {type === "email" && (
          <>
            {field("host", "SMTP host", { required: true, error: errorFor("smtp") })}
            {field("port", "SMTP port", { hint: "587 by default." })}
            {field("username", "SMTP user")}
            {field("password", "SMTP password", { type: "password" })}
            {field("from", "From", { required: true })}
            {field("to", "To", { required: true, hint: "Addresses, comma-separated." })}
          </>
        )}
        <Checkbox label="Allow private networks and plain http" checked={privateNetwork} onChecked={setPrivateNetwork} />
        <div class="actions">
          <button type="submit" class="primary">
            Add channel
          </button>
        </div>
      </form>
    </Panel>
  );
}

function RuleHistory({ rule, onClose }: { rule: AlertRule; onClose(): void }) {
  const history = useResource(() => alerts.history(rule.id), [rule.id]);
  return (
    <Panel title={`History of ${rule.name}`} onClose={onClose} wide>
      {history.error && <ErrorState error={history.error} retry={history.reload} />}
      {!history.data && !history.error && <Loading />}
      {history.data?.length === 0 && <Empty title="Nothing happened yet" />}
      {!!history.data?.length && (
        <table aria-label="Rule history">
          <TableHead columns={["When", "Change", "Figures or notification"]} />
          <tbody>
            {history.data.map((entry, index) => (
              <tr key={index}>
                <td>{formatTime(entry.at)}</td>
                <td>{entry.from ? `${entry.from} → ${entry.to}` : entry.to}</td>
                <td class="small">{entry.note ?? figuresText(entry.figures ?? {})}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Panel>
  );
}

function RuleActions({ rule, act, onHistory }: { rule: AlertRule; act(work: () => Promise<unknown>, done: string): void; onHistory(): void }) {
  const can = useCan();
  const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();
  return (
    <td class="row-actions">
      <button type="button" onClick={onHistory} aria-label={`History of ${rule.name}`}>
        History
      </button>
      {can("Alerts:Update") && rule.enabled && (
        <>
          <button type="button" onClick={() => act(() => alerts.evaluate(rule.id), `Evaluating ${rule.name}`)} aria-label={`Evaluate ${rule.name} now`}>
            Evaluate
          </button>
          {rule.silenced_until ? (
            <button type="button" onClick={() => act(() => alerts.unsilence(rule.id), `${rule.name} no longer silenced`)} aria-label={`Lift the silence of ${rule.name}`}>
              Unsilence
            </button>
          ) : (
            <button type="button" onClick={() => act(() => alerts.silence(rule.id, inAnHour()), `${rule.name} silenced for an hour`)} aria-label={`Silence ${rule.name} for an hour`}>
              Silence 1 h
            </button>
          )}
          {rule.state === "firing" && !rule.acknowledged && (
            <button type="button" onClick={() => act(() => alerts.acknowledge(rule.id), `${rule.name} acknowledged`)} aria-label={`Acknowledge ${rule.name}`}>
              Acknowledge
            </button>
          )}
        </>
      )}
      {can("Alerts:Delete") && <DeleteButton name={rule.name} onDelete={() => act(() => alerts.removeRule(rule.id), `Rule ${rule.name} deleted`)} />}
    </td>
  );
}

function RulesTable({ rules, act }: { rules: AlertRule[]; act(work: () => Promise<unknown>, done: string): void }) {
  const [history, setHistory] = useState<AlertRule>();
  return (
    <div class="table-wrap">
      <table aria-label="Alert rules">
        <TableHead columns={["Rule", "State", "Severity", "Scope", "Last figures"]} actions />
        <tbody>
          {rules.map((rule) => (
            <tr key={rule.id}>
              <td>
                {rule.name}
                <div class="muted small">{rule.condition}</div>
              </td>
              <td>
                <span class={`badge badge-${STATE_BADGE[rule.state]}`}>{rule.state}</span>
                {rule.acknowledged && <div class="muted small">acknowledged by {rule.acknowledged_by}</div>}
                {rule.silenced_until && <div class="muted small">silenced until {formatTime(rule.silenced_until)}</div>}
                {!rule.enabled && <div class="muted small">disabled</div>}
              </td>
              <td>{rule.severity}</td>
              <td class="small">{rule.scope === "global" ? "everything" : `${rule.scope.replace("_", " ")} ${rule.scope_id}`}</td>
              <td class="small">
                {figuresText(rule.figures) || "not evaluated yet"}
                <div>
                  <a href={rule.logs_url}>Logs</a>
                </div>
              </td>
              <RuleActions rule={rule} act={act} onHistory={() => setHistory(rule)} />
            </tr>
          ))}
        </tbody>
      </table>
      {history && <RuleHistory rule={history} onClose={() => setHistory(undefined)} />}
    </div>
  );
}

function ChannelsTable({ channels, act, test }: { channels: AlertChannel[]; act(work: () => Promise<unknown>, done: string): void; test(channel: AlertChannel): void }) {
  const can = useCan();
  return (
    <div class="table-wrap">
      <table aria-label="Alert channels">
        <TableHead columns={["Channel", "Type", "Sends to"]} actions />
        <tbody>
          {channels.map((channel) => (
            <tr key={channel.id}>
              <td>{channel.name}</td>
              <td>{CHANNEL_TYPES.find((type) => type.value === channel.type)?.label}</td>
              <td class="small">{channel.target}</td>
              <td class="row-actions">
                {can("Alerts:Update") && (
                  <button type="button" onClick={() => test(channel)} aria-label={`Send a test to ${channel.name}`}>
                    Test
                  </button>
                )}
                {can("Alerts:Delete") && <DeleteButton name={channel.name} onDelete={() => act(() => alerts.removeChannel(channel.id), `Channel ${channel.name} deleted`)} />}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Builtins({ act }: { act(work: () => Promise<unknown>, done: string): void }) {
  const builtins = useResource(alerts.builtins, []);
  const [chosen, setChosen] = useState("budget_80");
  if (!builtins.data) return null;
  return (
    <div class="inline-form">
      <SelectField label="Built-in rule" value={chosen} onValue={setChosen} options={builtins.data.map((builtin) => ({ value: builtin.name, label: builtin.description }))} />
      <button type="button" onClick={() => act(() => alerts.enableBuiltin(chosen), "Built-in rule enabled")}>
        Enable built-in
      </button>
    </div>
  );
}

function Forecasts() {
  const forecasts = useResource(alerts.forecast, []);
  if (!forecasts.data?.length) return null;
  return (
    <section aria-label="Budget forecasts">
      <h2>Budgets: when they run out at the current rate</h2>
      <table aria-label="Budget forecasts">
        <TableHead columns={["Budget", "Used", "At the last hour's rate", "At the last day's rate"]} />
        <tbody>
          {forecasts.data.map((forecast) => (
            <tr key={`${forecast.level}:${forecast.owner_id}:${forecast.max_limit}`}>
              <td>
                {forecast.owner_name} <span class="muted small">{forecast.level.replace("_", " ")}</span>
              </td>
              <td>
                ${forecast.current_usage.toFixed(4)} of ${forecast.max_limit}
              </td>
              <td>{forecast.short_window.exhausted_at ? formatTime(forecast.short_window.exhausted_at) : "not before it resets"}</td>
              <td>{forecast.long_window.exhausted_at ? formatTime(forecast.long_window.exhausted_at) : "not before it resets"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** Alert rules (state, history, silence, acknowledge), their channels (add, test) and the budgets' forecast. */
export function AlertsPage() {
  const can = useCan();
  const { toast } = useFeedback();
  const rules = useResource(alerts.rules, []);
  const channels = useResource(alerts.channels, []);
  const [form, setForm] = useState<"rule" | "channel">();
  const reload = () => {
    rules.reload();
    channels.reload();
  };
  const { save } = useSave(reload);
  const act = (work: () => Promise<unknown>, done: string) => void save(work, done);
  // Rules change state in the background: the list refreshes while the page is open.
  useEffect(() => {
    const timer = setInterval(rules.reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [rules.reload]);
  const test = async (channel: AlertChannel) => {
    try {
      const outcome = await alerts.testChannel(channel.id);
      toast(`Test to ${channel.name}: ${outcome.delivered ? "delivered" : "not delivered"} (${outcome.detail})`, outcome.delivered ? "success" : "error");
    } catch (error) {
      toast(messageOf(error), "error");
    }
  };
  return (
    <>
      <PageHeader title="Alerts">
        {can("Alerts:Create") && (
          <>
            <button type="button" onClick={() => setForm("channel")}>
              Add channel
            </button>
            <button type="button" class="primary" onClick={() => setForm("rule")}>
              Add rule
            </button>
          </>
        )}
      </PageHeader>
      {(rules.error || channels.error) && <ErrorState error={(rules.error ?? channels.error)!} retry={reload} />}
      {!rules.data && !rules.error && <Loading />}
      {rules.data?.length === 0 && (
        <Empty title="No alert rule yet">
          <p>Add a rule, or enable a built-in one, to be told when spend, errors or a provider go wrong.</p>
        </Empty>
      )}
      {can("Alerts:Create") && <Builtins act={act} />}
      {!!rules.data?.length && <RulesTable rules={rules.data} act={act} />}
      <h2>Channels</h2>
      {channels.data?.length === 0 && <p class="muted">No channel yet.</p>}
      {!!channels.data?.length && <ChannelsTable channels={channels.data} act={act} test={test} />}
      <Forecasts />
      {form === "rule" && <RuleForm channels={channels.data ?? []} onClose={() => setForm(undefined)} reload={reload} />}
      {form === "channel" && <ChannelForm onClose={() => setForm(undefined)} reload={reload} />}
    </>
  );
}
