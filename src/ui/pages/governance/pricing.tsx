import { useState } from "preact/hooks";
import { DeleteButton, EditButton } from "../../components/widgets";
import { pricingOverrides } from "../../api/endpoints";
import type { PricingOverride, PricingOverrideInput } from "../../api/types";
import { useFeedback } from "../../components/feedback";
import { SelectField, TextField } from "../../components/fields";
import { Panel } from "../../components/panel";
import { Empty, ErrorState, Loading } from "../../components/states";
import { useResource } from "../../lib/use-resource";
import { useSave } from "../../lib/use-save";
import { useCan } from "../../session";
import { TableHead } from "../../components/table-head";

const PER_MILLION = 1_000_000;
const perMillion = (perToken?: number) => (perToken === undefined ? "" : String(+(perToken * PER_MILLION).toPrecision(6)));
const perToken = (text: string) => (text.trim() ? Number(text) / PER_MILLION : undefined);

function OverrideForm({ editing, onClose, reload }: { editing?: PricingOverride; onClose(): void; reload(): void }) {
  const [name, setName] = useState(editing?.name ?? "");
  const [pattern, setPattern] = useState(editing?.pattern ?? "");
  const [matchType, setMatchType] = useState<PricingOverride["match_type"]>(editing?.match_type ?? "exact");
  const [scopeKind, setScopeKind] = useState<PricingOverride["scope_kind"]>(editing?.scope_kind ?? "global");
  const [scopeId, setScopeId] = useState(editing?.scope_id ?? "");
  const [input, setInput] = useState(perMillion(editing?.patch.input_cost_per_token));
  const [output, setOutput] = useState(perMillion(editing?.patch.output_cost_per_token));
  const [cached, setCached] = useState(perMillion(editing?.patch.cache_read_input_token_cost));
  const { save, errorFor } = useSave(reload);
  const submit = async (event: Event) => {
    event.preventDefault();
    const body: PricingOverrideInput = {
      name: name.trim(),
      pattern: pattern.trim(),
      match_type: matchType,
      scope_kind: scopeKind,
      scope_id: scopeKind === "global" ? null : scopeId.trim() || null,
      patch: { input_cost_per_token: perToken(input), output_cost_per_token: perToken(output), cache_read_input_token_cost: perToken(cached) },
    };
    if (await save(() => (editing ? pricingOverrides.update(editing.id, body) : pricingOverrides.create(body)), `Pricing override ${body.name} saved`)) onClose();
  };
  return (
    <Panel title={editing ? `Edit pricing override ${editing.name}` : "Create a pricing override"} onClose={onClose}>
      <form onSubmit={submit}>
        <TextField label="Name" required value={name} onValue={setName} error={errorFor("name")} />
        <div class="grid-2">
          <TextField label="Model" required value={pattern} onValue={setPattern} hint="The model name, or its beginning for a prefix match." error={errorFor("pattern")} />
          <SelectField label="Match" value={matchType} onValue={(value) => setMatchType(value as PricingOverride["match_type"])} options={["exact", "prefix"]} />
          <SelectField label="Applies to" value={scopeKind} onValue={(value) => setScopeKind(value as PricingOverride["scope_kind"])} options={["global", "provider", "provider_key", "virtual_key"]} />
          {scopeKind !== "global" && <TextField label="Scope id" value={scopeId} onValue={setScopeId} hint="Provider name, provider key id or virtual key id." error={errorFor("scope_id")} />}
        </div>
        <fieldset class="grid-3">
          <legend>USD per million tokens</legend>
          <TextField label="Input" inputMode="decimal" value={input} onValue={setInput} error={errorFor("patch")} />
          <TextField label="Output" inputMode="decimal" value={output} onValue={setOutput} />
          <TextField label="Cached input" inputMode="decimal" value={cached} onValue={setCached} />
        </fieldset>
        <div class="actions">
          <button type="submit" class="primary">
            Save override
          </button>
        </div>
      </form>
    </Panel>
  );
}

export function PricingTab() {
  const can = useCan();
  const { confirm } = useFeedback();
  const list = useResource(pricingOverrides.list, []);
  const { save } = useSave(list.reload);
  const [form, setForm] = useState<{ editing?: PricingOverride }>();
  const remove = async (row: PricingOverride) => {
    if (await confirm(`Delete pricing override ${row.name}?`, <p>Requests are priced from the shipped catalogue again.</p>)) await save(() => pricingOverrides.remove(row.id), `Pricing override ${row.name} deleted`);
  };
  return (
    <>
      <div class="toolbar">
        {can("PricingOverrides:Create") && (
          <button type="button" class="primary" onClick={() => setForm({})}>
            Create pricing override
          </button>
        )}
      </div>
      {list.error && <ErrorState error={list.error} retry={list.reload} />}
      {!list.data && !list.error && <Loading />}
      {list.data?.length === 0 && (
        <Empty title="No pricing override">
          <p>Costs come from the shipped price catalogue. Override a model's price for negotiated rates, self-hosted models or a custom provider.</p>
        </Empty>
      )}
      {!!list.data?.length && (
        <div class="table-wrap">
          <table aria-label="Pricing overrides">
            <TableHead columns={["Name", "Model", "Applies to", { label: "Input $/M", number: true }, { label: "Output $/M", number: true }]} actions />
            <tbody>
              {list.data.map((row) => (
                <tr key={row.id}>
                  <td>{row.name}</td>
                  <td>
                    <code>{row.pattern}</code> {row.match_type === "prefix" && <span class="muted">(prefix)</span>}
                  </td>
                  <td>
                    {row.scope_kind}
                    {row.scope_id && ` ${row.scope_id}`}
                  </td>
                  <td class="number">{perMillion(row.patch.input_cost_per_token) || "–"}</td>
                  <td class="number">{perMillion(row.patch.output_cost_per_token) || "–"}</td>
                  <td class="row-actions">
                    {can("PricingOverrides:Update") && (
                      <EditButton name={row.name} onEdit={() => setForm({ editing: row })} />
                    )}
                    {can("PricingOverrides:Delete") && (
                      <DeleteButton name={row.name} onDelete={() => remove(row)} />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {form && <OverrideForm editing={form.editing} reload={list.reload} onClose={() => setForm(undefined)} />}
    </>
  );
}
