import { useState } from "preact/hooks";
import { agents, customers, mcp, providers, teams, usage, virtualKeys } from "../../api/endpoints";
import type { BudgetUsage, ProviderConfig, VirtualKey, VirtualKeyInput } from "../../api/types";
import { ExhaustionForecast } from "../../components/exhaustion-forecast";
import { useFeedback } from "../../components/feedback";
import { Checkbox, SelectField, TextField } from "../../components/fields";
import { LimitsFields, limitsDraftOf, limitsInput, limitsSummary } from "../../components/limits-fields";
import { Panel, SecretShownOnce } from "../../components/panel";
import { Empty, ErrorState, Loading } from "../../components/states";
import { DeleteButton, EditButton, UsageBar } from "../../components/widgets";
import { formatCost, formatCount, formatDuration, listOf } from "../../lib/format";
import { useResource } from "../../lib/use-resource";
import { useSave } from "../../lib/use-save";
import { useCan } from "../../session";
import { TableHead } from "../../components/table-head";
import { ToolSearchFields, toolSearchDraftOf, toolSearchOf } from "../../components/tool-search-fields";
import { AgentGrantFields, McpToolFields, mcpDraftOf, mcpGrantsOf } from "./key-access-fields";
import { KeySessions, sessionBudgetSummary } from "./key-sessions";

/** A provider config as the form edits it; what the form does not show (key ids, budgets, rate limit) is sent back as it was. */
interface ConfigDraft {
  provider: string;
  models: string;
  weight: string;
  kept: Omit<ProviderConfig, "provider" | "allowed_models" | "weight">;
}

const configDraftOf = ({ provider, allowed_models, weight, ...kept }: ProviderConfig): ConfigDraft => ({ provider, models: (allowed_models ?? []).join(", "), weight: String(weight ?? 1), kept });
const configOf = (draft: ConfigDraft): ProviderConfig => ({ ...draft.kept, provider: draft.provider, allowed_models: listOf(draft.models), weight: Number(draft.weight) });

/** What the form picks from: teams, customers, providers, MCP clients and agents, each read only when the role may list it (empty otherwise). */
async function choices(can: (permission: string) => boolean) {
  const [teamList, customerList, providerList, mcpClients, agentList] = await Promise.all([
    can("Teams:View") ? teams.list() : [],
    can("Customers:View") ? customers.list() : [],
    can("ModelProvider:View") ? providers.list().then((answer) => answer.providers.map((provider) => provider.provider)) : [],
    can("MCP:View") ? mcp.clients().then((clients) => clients.map((client) => client.name)) : [],
    can("Agents:View") ? agents.list().then((list) => list.map((agent) => agent.name)) : [],
  ]);
  return { teams: teamList, customers: customerList, providers: providerList, mcpClients, agents: agentList };
}

function KeyForm({ editing, onClose, onCreated, reload }: { editing?: VirtualKey; onClose(): void; onCreated(value: string, name: string): void; reload(): void }) {
  const can = useCan();
  const options = useResource(() => choices(can), []);
  const [name, setName] = useState(editing?.name ?? "");
  const [description, setDescription] = useState(editing?.description ?? "");
  const [team, setTeam] = useState(editing?.team_id ?? "");
  const [customer, setCustomer] = useState(editing?.customer_id ?? "");
  const [configs, setConfigs] = useState<ConfigDraft[]>((editing?.provider_configs ?? []).map(configDraftOf));
  const [limits, setLimits] = useState(limitsDraftOf(editing?.budgets, editing?.rate_limit));
  const [mcpTools, setMcpTools] = useState<Record<string, string>>();
  const [agentGrants, setAgentGrants] = useState(editing?.agent_grants ?? []);
  const [resumable, setResumable] = useState(editing?.resumable_streams ?? false);
  const [allowedPrompts, setAllowedPrompts] = useState((editing?.allowed_prompts ?? []).join(", "));
  const [toolSearch, setToolSearch] = useState(toolSearchDraftOf(editing?.mcp_tool_search));
  const { save, errorFor } = useSave(reload);
  const mcpDraft = mcpTools ?? mcpDraftOf(editing?.mcp_configs ?? [], options.data?.mcpClients ?? []);
  const submit = async (event: Event) => {
    event.preventDefault();
    const input: VirtualKeyInput & { name: string } = {
      name: name.trim(),
      description,
      team_id: team || null,
      customer_id: team ? null : customer || null,
      provider_configs: configs.filter((config) => config.provider).map(configOf),
      ...limitsInput(limits),
      mcp_configs: mcpGrantsOf(mcpDraft, editing?.mcp_configs ?? []),
      agent_grants: agentGrants,
      resumable_streams: resumable,
      allowed_prompts: listOf(allowedPrompts),
      mcp_tool_search: toolSearchOf(toolSearch),
    };
    if (editing) {
      if (await save(() => virtualKeys.update(editing.id, input), `Virtual key ${input.name} saved`)) onClose();
      return;
    }
    let value = "";
    if (await save(async () => (value = (await virtualKeys.create(input)).value), `Virtual key ${input.name} created`)) onCreated(value, input.name);
  };
  const providerOptions = ["", ...(options.data?.providers ?? [])];
  return (
    <Panel title={editing ? `Edit virtual key ${editing.name}` : "Create a virtual key"} onClose={onClose} wide>
      {!options.data ? (
        <Loading />
      ) : (
        <form onSubmit={submit}>
          <div class="grid-2">
            <TextField label="Name" required value={name} onValue={setName} error={errorFor("name")} />
            <TextField label="Description" value={description} onValue={setDescription} />
            <SelectField label="Team" value={team} onValue={setTeam} options={[{ value: "", label: "No team" }, ...options.data.teams.map((row) => ({ value: row.id, label: row.name }))]} />
            <SelectField
              label="Customer"
              value={customer}
              onValue={setCustomer}
              hint="A key belongs to a team or a customer (a team's customer applies through it)."
              options={[{ value: "", label: "No customer" }, ...options.data.customers.map((row) => ({ value: row.id, label: row.name }))]}
            />
          </div>
          <fieldset>
            <legend>Providers this key may use</legend>
            {configs.length === 0 && <p class="muted small">None listed: the key may use every provider.</p>}
            {configs.map((config, index) => (
              <div class="grid-3" key={index}>
                <SelectField label={`Provider ${index + 1}`} value={config.provider} onValue={(provider) => setConfigs(configs.map((entry, at) => (at === index ? { ...entry, provider } : entry)))} options={providerOptions} />
                <TextField label={`Allowed models ${index + 1}`} value={config.models} placeholder="all" onValue={(models) => setConfigs(configs.map((entry, at) => (at === index ? { ...entry, models } : entry)))} />
                <TextField label={`Weight ${index + 1}`} inputMode="decimal" value={config.weight} onValue={(weight) => setConfigs(configs.map((entry, at) => (at === index ? { ...entry, weight } : entry)))} />
              </div>
            ))}
            <button type="button" onClick={() => setConfigs([...configs, { provider: options.data?.providers[0] ?? "", models: "", weight: "1", kept: {} }])}>
              Add provider
            </button>
            {errorFor("provider_configs") && (
              <p class="field-error" role="alert">
                {errorFor("provider_configs")}
              </p>
            )}
          </fieldset>
          <LimitsFields draft={limits} onDraft={setLimits} errorFor={errorFor} />
          <McpToolFields draft={mcpDraft} onDraft={setMcpTools} />
          <ToolSearchFields draft={toolSearch} onDraft={setToolSearch} field="mcp_tool_search" errorFor={errorFor} pinnedHint="As <client>-<tool>, comma-separated: offered from the start in chat requests with MCP tools." />
          <AgentGrantFields grants={agentGrants} agents={options.data.agents} onGrants={setAgentGrants} />
          <Checkbox label="Keep every streamed reply resumable (a client that drops resumes it with GET /v1/streams/{id})" checked={resumable} onChecked={setResumable} />
          <TextField
            label="Allowed prompts"
            value={allowedPrompts}
            onValue={setAllowedPrompts}
            placeholder="any request"
            hint="Prompt names, comma-separated: the key then runs only those prompts and sends nothing else. Empty: no such limit."
            error={errorFor("allowed_prompts")}
          />
          <div class="actions">
            <button type="submit" class="primary">
              {editing ? "Save virtual key" : "Create virtual key"}
            </button>
          </div>
        </form>
      )}
    </Panel>
  );
}

/** The key's value, shown this once: after create or rotate. */
function CreatedKey({ name, value, rotated, onClose }: { name: string; value: string; rotated?: boolean; onClose(): void }) {
  return (
    <SecretShownOnce
      title={`Virtual key ${name} ${rotated ? "rotated" : "created"}`}
      noun="key"
      label="Virtual key value"
      secret={value}
      usage="Clients send it as a bearer token, e.g. the OpenAI SDK's apiKey."
      copyLabel="Copy key"
      onClose={onClose}
    />
  );
}

type RateUsage = Record<string, string | number>;

/** A key's own budgets and rate limits as bars with their reset times (and when a budget runs out at the current rate); the configured limits when usage is not readable. */
function KeyLimits({ keyRow, budgets, rates }: { keyRow: VirtualKey; budgets?: BudgetUsage[]; rates?: RateUsage[] }) {
  const own = (row: { level?: unknown; owner_id?: unknown }) => row.level === "virtual_key" && row.owner_id === keyRow.id;
  const ownBudgets = budgets?.filter(own) ?? [];
  const ownRate = rates?.find(own);
  if (!budgets || (ownBudgets.length === 0 && !ownRate)) return <span class="small">{limitsSummary(keyRow.budgets, keyRow.rate_limit)}</span>;
  return (
    <div class="key-limits">
      {ownBudgets.map((budget) => (
        <div key={budget.reset_duration}>
          <UsageBar label={`Budget per ${formatDuration(budget.reset_duration)}`} used={budget.current_usage} max={budget.max_limit} resetsAt={budget.resets_at} format={formatCost} />
          <ExhaustionForecast forecast={keyRow.forecasts.find((forecast) => own(forecast) && forecast.reset_duration === budget.reset_duration)} />
        </div>
      ))}
      {ownRate?.token_max_limit !== undefined && (
        <UsageBar label={`Tokens per ${formatDuration(String(ownRate.token_reset_duration))}`} used={Number(ownRate.token_current_usage)} max={Number(ownRate.token_max_limit)} resetsAt={String(ownRate.token_resets_at)} format={formatCount} />
      )}
      {ownRate?.request_max_limit !== undefined && (
        <UsageBar label={`Requests per ${formatDuration(String(ownRate.request_reset_duration))}`} used={Number(ownRate.request_current_usage)} max={Number(ownRate.request_max_limit)} resetsAt={String(ownRate.request_resets_at)} format={formatCount} />
      )}
    </div>
  );
}

export function VirtualKeysTab() {
  const can = useCan();
  const { confirm } = useFeedback();
  const list = useResource(virtualKeys.list, []);
  // Usage is shown where the role may read it; a key's configured limits otherwise.
  const limits = useResource(() => Promise.all([can("Budgets:View") ? usage.budgets() : Promise.resolve(undefined), can("RateLimits:View") ? usage.rateLimits() : Promise.resolve(undefined)]), [list.data]);
  const { save } = useSave(list.reload);
  const [form, setForm] = useState<{ editing?: VirtualKey }>();
  const [sessionsOf, setSessionsOf] = useState<VirtualKey>();
  const [created, setCreated] = useState<{ name: string; value: string; rotated?: boolean }>();
  const remove = async (key: VirtualKey) => {
    if (await confirm(`Delete virtual key ${key.name}?`, <p>Clients using it are refused from now on.</p>)) await save(() => virtualKeys.remove(key.id), `Virtual key ${key.name} deleted`);
  };
  const rotate = async (key: VirtualKey) => {
    if (!(await confirm(`Rotate virtual key ${key.name}?`, <p>A new value is issued; clients using the current one are refused from now on.</p>, "Rotate"))) return;
    let value = "";
    if (await save(async () => (value = (await virtualKeys.rotate(key.id)).value), `Virtual key ${key.name} rotated`)) setCreated({ name: key.name, value, rotated: true });
  };
  return (
    <>
      <div class="toolbar">
        {can("VirtualKeys:Create") && (
          <button type="button" class="primary" onClick={() => setForm({})}>
            Create virtual key
          </button>
        )}
      </div>
      {list.error && <ErrorState error={list.error} retry={list.reload} />}
      {!list.data && !list.error && <Loading />}
      {list.data?.length === 0 && (
        <Empty title="No virtual key yet">
          <p>Create one for each app or team: it carries their providers, budgets and rate limits, and their requests are logged under it.</p>
        </Empty>
      )}
      {!!list.data?.length && (
        <div class="table-wrap">
          <table aria-label="Virtual keys">
            <TableHead columns={["Name", "Key", "Owner", "Providers", "Limits and usage", "State"]} actions />
            <tbody>
              {list.data.map((key) => (
                <tr key={key.id}>
                  <td>
                    {key.name}
                    {key.description && <div class="muted small">{key.description}</div>}
                  </td>
                  <td>
                    <code>{key.key_prefix}…</code>
                  </td>
                  <td>{key.team?.name ?? key.customer?.name ?? <span class="muted">–</span>}</td>
                  <td>{key.provider_configs.map((config) => config.provider).join(", ") || <span class="muted">all</span>}</td>
                  <td>
                    <KeyLimits keyRow={key} budgets={limits.data?.[0]} rates={limits.data?.[1]} />
                    {key.session_budgets && (
                      <div class="small">
                        {sessionBudgetSummary(key.session_budgets)}{" "}
                        <button type="button" aria-label={`Sessions of ${key.name}`} onClick={() => setSessionsOf(key)}>
                          Sessions
                        </button>
                      </div>
                    )}
                  </td>
                  <td>{key.is_active ? <span class="badge badge-ok">active</span> : <span class="badge badge-neutral">inactive</span>}</td>
                  <td class="row-actions">
                    {can("VirtualKeys:Update") && (
                      <>
                        <EditButton name={key.name} onEdit={() => setForm({ editing: key })} />
                        <button type="button" onClick={() => save(() => virtualKeys.update(key.id, { is_active: !key.is_active }), `Virtual key ${key.name} ${key.is_active ? "deactivated" : "activated"}`)}>
                          {key.is_active ? "Deactivate" : "Activate"}
                        </button>
                        <button type="button" aria-label={`Rotate ${key.name}`} onClick={() => rotate(key)}>
                          Rotate
                        </button>
                      </>
                    )}
                    {can("VirtualKeys:Delete") && (
                      <DeleteButton name={key.name} onDelete={() => remove(key)} />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {form && (
        <KeyForm
          editing={form.editing}
          reload={list.reload}
          onClose={() => setForm(undefined)}
          onCreated={(value, name) => {
            setForm(undefined);
            setCreated({ value, name });
          }}
        />
      )}
      {created && <CreatedKey {...created} onClose={() => setCreated(undefined)} />}
      {sessionsOf && <KeySessions keyRow={sessionsOf} onClose={() => setSessionsOf(undefined)} />}
    </>
  );
}
