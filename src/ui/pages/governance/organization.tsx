import { useState } from "preact/hooks";
import { DeleteButton, EditButton } from "../../components/widgets";
import { customers, teams } from "../../api/endpoints";
import type { Customer, Team } from "../../api/types";
import { ExhaustionForecast } from "../../components/exhaustion-forecast";
import { useFeedback } from "../../components/feedback";
import { SelectField, TextField } from "../../components/fields";
import { LimitsFields, limitsDraftOf, limitsInput, limitsSummary } from "../../components/limits-fields";
import { Panel } from "../../components/panel";
import { Empty, ErrorState, Loading } from "../../components/states";
import { useResource } from "../../lib/use-resource";
import { useSave } from "../../lib/use-save";
import { useCan } from "../../session";
import { TableHead } from "../../components/table-head";

type Kind = "team" | "customer";
type Row = Team | Customer;

const WORDS = {
  team: { title: "Team", plural: "teams", resource: "Teams", empty: "Teams group virtual keys under one budget and rate limit, e.g. one per product team." },
  customer: { title: "Customer", plural: "customers", resource: "Customers", empty: "Customers hold teams and virtual keys of one client of yours, with a budget over all of them." },
} as const;

function OrgForm({ kind, editing, onClose, reload, customerList }: { kind: Kind; editing?: Row; onClose(): void; reload(): void; customerList: Customer[] }) {
  const [name, setName] = useState(editing?.name ?? "");
  const [customer, setCustomer] = useState((editing as Team | undefined)?.customer_id ?? "");
  const [limits, setLimits] = useState(limitsDraftOf(editing?.budgets, editing?.rate_limit));
  const { save, errorFor } = useSave(reload);
  const submit = async (event: Event) => {
    event.preventDefault();
    const input = { name: name.trim(), ...limitsInput(limits) };
    const api = kind === "team" ? teams : customers;
    const body = kind === "team" ? { ...input, customer_id: customer || null } : input;
    const done = `${WORDS[kind].title} ${input.name} ${editing ? "saved" : "created"}`;
    if (await save(() => (editing ? api.update(editing.id, body) : api.create(body)), done)) onClose();
  };
  return (
    <Panel title={editing ? `Edit ${kind} ${editing.name}` : `Create a ${kind}`} onClose={onClose}>
      <form onSubmit={submit}>
        <TextField label="Name" required value={name} onValue={setName} error={errorFor("name")} />
        {kind === "team" && <SelectField label="Customer" value={customer} onValue={setCustomer} options={[{ value: "", label: "No customer" }, ...customerList.map((row) => ({ value: row.id, label: row.name }))]} />}
        <LimitsFields draft={limits} onDraft={setLimits} errorFor={errorFor} />
        <div class="actions">
          <button type="submit" class="primary">
            {editing ? "Save" : `Create ${kind}`}
          </button>
        </div>
      </form>
    </Panel>
  );
}

function OrgTab({ kind }: { kind: Kind }) {
  const words = WORDS[kind];
  const can = useCan();
  const { confirm } = useFeedback();
  const list = useResource<Row[]>(() => (kind === "team" ? teams.list() : customers.list()), [kind]);
  const customerList = useResource(() => (kind === "team" && can("Customers:View") ? customers.list() : Promise.resolve([])), [kind]);
  const { save } = useSave(list.reload);
  const [form, setForm] = useState<{ editing?: Row }>();
  const remove = async (row: Row) => {
    const api = kind === "team" ? teams : customers;
    if (await confirm(`Delete ${kind} ${row.name}?`, <p>Its virtual keys stay, without this {kind} and its limits.</p>)) await save(() => api.remove(row.id), `${words.title} ${row.name} deleted`);
  };
  return (
    <>
      <div class="toolbar">
        {can(`${words.resource}:Create`) && (
          <button type="button" class="primary" onClick={() => setForm({})}>
            Create {kind}
          </button>
        )}
      </div>
      {list.error && <ErrorState error={list.error} retry={list.reload} />}
      {!list.data && !list.error && <Loading />}
      {list.data?.length === 0 && (
        <Empty title={`No ${words.plural} yet`}>
          <p>{words.empty}</p>
        </Empty>
      )}
      {!!list.data?.length && (
        <div class="table-wrap">
          <table aria-label={words.title + "s"}>
            <TableHead columns={["Name", kind === "team" && "Customer", "Limits"]} actions />
            <tbody>
              {list.data.map((row) => (
                <tr key={row.id}>
                  <td>{row.name}</td>
                  {kind === "team" && <td>{(row as Team).customer?.name ?? <span class="muted">–</span>}</td>}
                  <td class="small">
                    {limitsSummary(row.budgets, row.rate_limit)}
                    {row.forecasts.map((forecast) => (
                      <ExhaustionForecast key={forecast.reset_duration} forecast={forecast} />
                    ))}
                  </td>
                  <td class="row-actions">
                    {can(`${words.resource}:Update`) && (
                      <EditButton name={row.name} onEdit={() => setForm({ editing: row })} />
                    )}
                    {can(`${words.resource}:Delete`) && (
                      <DeleteButton name={row.name} onDelete={() => remove(row)} />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {form && <OrgForm kind={kind} editing={form.editing} reload={list.reload} customerList={customerList.data ?? []} onClose={() => setForm(undefined)} />}
    </>
  );
}

export const TeamsTab = () => <OrgTab kind="team" />;
export const CustomersTab = () => <OrgTab kind="customer" />;
