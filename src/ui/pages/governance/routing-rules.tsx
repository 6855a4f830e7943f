import { useState } from "preact/hooks";
import { DeleteButton, EditButton } from "../../components/widgets";
import { routingRules } from "../../api/endpoints";
import type { RoutingRule, RoutingRuleInput, RoutingScope } from "../../api/types";
import { useFeedback } from "../../components/feedback";
import { Checkbox, Field, SelectField, TextField } from "../../components/fields";
import { Panel } from "../../components/panel";
import { Empty, ErrorState, Loading } from "../../components/states";
import { listOf } from "../../lib/format";
import { useResource } from "../../lib/use-resource";
import { useSave } from "../../lib/use-save";
import { useCan } from "../../session";
import { TableHead } from "../../components/table-head";

const SCOPES: RoutingScope[] = ["global", "customer", "team", "virtual_key"];

function RuleForm({ editing, onClose, reload }: { editing?: RoutingRule; onClose(): void; reload(): void }) {
  const target = editing?.targets[0];
  const [name, setName] = useState(editing?.name ?? "");
  const [description, setDescription] = useState(editing?.description ?? "");
  const [expression, setExpression] = useState(editing?.cel_expression ?? "");
  const [provider, setProvider] = useState(target?.provider ?? "");
  const [model, setModel] = useState(target?.model ?? "");
  const [fallbacks, setFallbacks] = useState((editing?.fallbacks ?? []).join(", "));
  const [scope, setScope] = useState<RoutingScope>(editing?.scope ?? "global");
  const [scopeId, setScopeId] = useState(editing?.scope_id ?? "");
  const [priority, setPriority] = useState(String(editing?.priority ?? 0));
  const [enabled, setEnabled] = useState(editing?.enabled ?? true);
  const { save, errorFor } = useSave(reload);
  const submit = async (event: Event) => {
    event.preventDefault();
    const input: RoutingRuleInput = {
      name: name.trim(),
      description,
      enabled,
      cel_expression: expression,
      targets: [{ provider: provider.trim() || undefined, model: model.trim() || undefined, weight: 1 }],
      fallbacks: listOf(fallbacks),
      scope,
      scope_id: scope === "global" ? null : scopeId.trim() || null,
      priority: Number(priority),
    };
    // The gateway compiles the expression before it stores the rule: a CEL error comes back as a 400 on cel_expression.
    if (await save(() => (editing ? routingRules.update(editing.id, input) : routingRules.create(input)), `Routing rule ${input.name} saved`)) onClose();
  };
  const celError = errorFor("cel_expression");
  return (
    <Panel title={editing ? `Edit routing rule ${editing.name}` : "Create a routing rule"} onClose={onClose} wide>
      <form onSubmit={submit}>
        <div class="grid-2">
          <TextField label="Name" required value={name} onValue={setName} error={errorFor("name")} />
          <TextField label="Description" value={description} onValue={setDescription} />
        </div>
        <Field label="Condition (CEL)" error={celError} hint={<>Over the request, e.g. <code>model == "gpt-4o" &amp;&amp; headers["x-tier"] == "free"</code>. The gateway checks it when you save.</>}>
          {(ids) => <textarea {...ids} class="code-input" rows={4} spellcheck={false} value={expression} onInput={(event) => setExpression(event.currentTarget.value)} />}
        </Field>
        <div class="grid-2">
          <TextField label="Route to provider" value={provider} onValue={setProvider} hint="Empty keeps the request's provider." error={errorFor("targets")} />
          <TextField label="Route to model" value={model} onValue={setModel} hint="Empty keeps the request's model." />
          <TextField label="Fallbacks" value={fallbacks} onValue={setFallbacks} placeholder="provider/model, …" error={errorFor("fallbacks")} />
          <TextField label="Priority" inputMode="numeric" value={priority} onValue={setPriority} hint="Lower runs first; the first match wins." error={errorFor("priority")} />
          <SelectField label="Scope" value={scope} onValue={(value) => setScope(value as RoutingScope)} options={SCOPES} />
          {scope !== "global" && <TextField label="Scope id" value={scopeId} onValue={setScopeId} hint={`Id of the ${scope.replace("_", " ")}.`} error={errorFor("scope_id")} />}
        </div>
        <Checkbox label="Enabled" checked={enabled} onChecked={setEnabled} />
        <div class="actions">
          <button type="submit" class="primary">
            Save rule
          </button>
        </div>
      </form>
    </Panel>
  );
}

export function RoutingRulesTab() {
  const can = useCan();
  const { confirm } = useFeedback();
  const list = useResource(routingRules.list, []);
  const { save } = useSave(list.reload);
  const [form, setForm] = useState<{ editing?: RoutingRule }>();
  const remove = async (rule: RoutingRule) => {
    if (await confirm(`Delete routing rule ${rule.name}?`, <p>Requests it matched go to the model they name again.</p>)) await save(() => routingRules.remove(rule.id), `Routing rule ${rule.name} deleted`);
  };
  const rules = [...(list.data ?? [])].sort((a, b) => a.priority - b.priority);
  return (
    <>
      <div class="toolbar">
        {can("RoutingRules:Create") && (
          <button type="button" class="primary" onClick={() => setForm({})}>
            Create routing rule
          </button>
        )}
      </div>
      {list.error && <ErrorState error={list.error} retry={list.reload} />}
      {!list.data && !list.error && <Loading />}
      {list.data?.length === 0 && (
        <Empty title="No routing rule yet">
          <p>A rule sends requests matching a CEL condition to another provider or model, with fallbacks: e.g. free-tier traffic to a cheaper model.</p>
        </Empty>
      )}
      {rules.length > 0 && (
        <div class="table-wrap">
          <table aria-label="Routing rules">
            <TableHead columns={[{ label: "Priority", number: true }, "Name", "Condition", "Target", "Scope"]} actions />
            <tbody>
              {rules.map((rule) => (
                <tr key={rule.id}>
                  <td class="number">{rule.priority}</td>
                  <td>
                    {rule.name}
                    {!rule.enabled && <span class="badge badge-neutral">disabled</span>}
                  </td>
                  <td>
                    <code>{rule.cel_expression}</code>
                  </td>
                  <td>{rule.targets.map((target) => `${target.provider || "(same)"}/${target.model || "(same)"}`).join(", ")}</td>
                  <td>{rule.scope}</td>
                  <td class="row-actions">
                    {can("RoutingRules:Update") && (
                      <EditButton name={rule.name} onEdit={() => setForm({ editing: rule })} />
                    )}
                    {can("RoutingRules:Delete") && (
                      <DeleteButton name={rule.name} onDelete={() => remove(rule)} />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {form && <RuleForm editing={form.editing} reload={list.reload} onClose={() => setForm(undefined)} />}
    </>
  );
}
