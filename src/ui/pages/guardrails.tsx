import { useState } from "preact/hooks";
import { guardrails } from "../api/endpoints";
import type { Guardrail, GuardrailAction, GuardrailCheck, GuardrailCheckType, GuardrailScope, GuardrailStage } from "../api/types";
import { useFeedback } from "../components/feedback";
import { Checkbox, SelectField, TextField } from "../components/fields";
import { PageHeader } from "../components/layout";
import { Panel } from "../components/panel";
import { Empty, ErrorState, Loading } from "../components/states";
import { listOf } from "../lib/format";
import { useResource } from "../lib/use-resource";
import { useSave } from "../lib/use-save";
import { useCan } from "../session";
import { TableHead } from "../components/table-head";
import { DeleteButton, EditButton } from "../components/widgets";

/** The check types the form builds; a policy's check of another type (made through the API) is kept as it is. */
const CHECK_TYPES: Array<{ value: GuardrailCheckType; label: string }> = [
  { value: "email", label: "Email address" },
  { value: "phone", label: "Phone number" },
  { value: "payment_card", label: "Payment card number" },
  { value: "iban", label: "IBAN" },
  { value: "national_id", label: "National ID number" },
  { value: "ip_address", label: "IP address" },
  { value: "api_key", label: "API key" },
  { value: "private_key", label: "Private key" },
  { value: "jwt", label: "JWT" },
  { value: "regex", label: "Custom regex" },
  { value: "word_list", label: "Word list" },
];

const SCOPES: Array<{ value: GuardrailScope; label: string }> = [
  { value: "global", label: "Every request" },
  { value: "virtual_key", label: "A virtual key" },
  { value: "team", label: "A team" },
  { value: "customer", label: "A customer" },
  { value: "routing_rule", label: "A routing rule" },
];

const STAGES: Array<{ value: GuardrailStage; label: string }> = [
  { value: "input", label: "Input (the request)" },
  { value: "output", label: "Output (the reply)" },
  { value: "both", label: "Both" },
];

const ACTIONS: Array<{ value: GuardrailAction; label: string }> = [
  { value: "block", label: "Block" },
  { value: "redact", label: "Redact" },
  { value: "log", label: "Log only" },
];

const typeLabel = (type: string) => CHECK_TYPES.find((entry) => entry.value === type)?.label ?? type;
const checkSummary = (check: GuardrailCheck) => `${check.name ?? typeLabel(check.type)}: ${check.action ?? "block"} on ${check.stage ?? "both"}`;
const scopeText = (guardrail: Guardrail) => (guardrail.scope === "global" ? "every request" : `${guardrail.scope.replace("_", " ")} ${guardrail.scope_id}`);

function CheckFields({ check, index, onChange, onRemove, errorFor }: { check: GuardrailCheck; index: number; onChange(check: GuardrailCheck): void; onRemove?(): void; errorFor(field: string): string | undefined }) {
  const field = (name: string) => errorFor(`checks[${index}].${name}`);
  const types = CHECK_TYPES.some((entry) => entry.value === check.type) ? CHECK_TYPES : [...CHECK_TYPES, { value: check.type, label: check.type }];
  return (
    <fieldset class="check">
      <legend>Check {index + 1}</legend>
      <SelectField label="Type" value={check.type} onValue={(type) => onChange({ ...check, type: type as GuardrailCheckType })} options={types} error={field("type")} />
      <SelectField label="Stage" value={check.stage ?? "both"} onValue={(stage) => onChange({ ...check, stage: stage as GuardrailStage })} options={STAGES} error={field("stage")} />
      <SelectField label="Action" value={check.action ?? "block"} onValue={(action) => onChange({ ...check, action: action as GuardrailAction })} options={ACTIONS} error={field("action")} />
      {check.type === "regex" && <TextField label="Pattern" required value={check.pattern ?? ""} onValue={(pattern) => onChange({ ...check, pattern })} hint="An RE2 regular expression." error={field("pattern")} />}
      {check.type === "word_list" && <TextField label="Words" required value={(check.words ?? []).join(", ")} onValue={(words) => onChange({ ...check, words: listOf(words) })} hint="Comma-separated." error={field("words")} />}
      {(check.type === "regex" || check.type === "word_list") && (
        <TextField label="Placeholder label" value={check.label ?? ""} onValue={(label) => onChange({ ...check, label: label || undefined })} hint="Redacted text becomes [LABEL_1]; capitals, digits, underscores." error={field("label")} />
      )}
      {onRemove && (
        <button type="button" onClick={onRemove} aria-label={`Remove check ${index + 1}`}>
          Remove check
        </button>
      )}
    </fieldset>
  );
}

function GuardrailForm({ editing, onClose, reload }: { editing?: Guardrail; onClose(): void; reload(): void }) {
  const [name, setName] = useState(editing?.name ?? "");
  const [description, setDescription] = useState(editing?.description ?? "");
  const [scope, setScope] = useState<GuardrailScope>(editing?.scope ?? "global");
  const [scopeId, setScopeId] = useState(editing?.scope_id ?? "");
  const [enabled, setEnabled] = useState(editing?.enabled ?? true);
  const [restore, setRestore] = useState(editing?.restore_redacted ?? false);
  const [checks, setChecks] = useState<GuardrailCheck[]>(editing?.checks ?? [{ type: "email", stage: "input", action: "redact" }]);
  const { save, errorFor } = useSave(reload);
  const submit = async (event: Event) => {
    event.preventDefault();
    const input = { name: name.trim(), description, enabled, scope, ...(scope === "global" ? {} : { scope_id: scopeId.trim() }), restore_redacted: restore, checks };
    if (await save(() => (editing ? guardrails.update(editing.id, input) : guardrails.create(input)), `Guardrail ${input.name} saved`)) onClose();
  };
  const change = (index: number, check: GuardrailCheck) => setChecks(checks.map((existing, at) => (at === index ? check : existing)));
  return (
    <Panel title={editing ? `Edit guardrail ${editing.name}` : "Add a guardrail"} onClose={onClose}>
      <form onSubmit={submit}>
        <TextField label="Name" required value={name} onValue={setName} error={errorFor("name")} />
        <TextField label="Description" value={description} onValue={setDescription} error={errorFor("description")} />
        <SelectField label="Applies to" value={scope} onValue={(value) => setScope(value as GuardrailScope)} options={SCOPES} error={errorFor("scope")} />
        {scope !== "global" && <TextField label="Scope ID" required value={scopeId} onValue={setScopeId} hint={`The id of the ${scope.replace("_", " ")}.`} error={errorFor("scope_id")} />}
        <Checkbox label="Enabled" checked={enabled} onChecked={setEnabled} />
        <Checkbox label="Put redacted values back in the reply" checked={restore} onChecked={setRestore} />
        {checks.map((check, index) => (
          <CheckFields key={index} check={check} index={index} onChange={(next) => change(index, next)} onRemove={checks.length > 1 ? () => setChecks(checks.filter((_, at) => at !== index)) : undefined} errorFor={errorFor} />
        ))}
        {errorFor("checks") && !checks.some((_, index) => errorFor(`checks[${index}]`)) && (
          <p class="field-error" role="alert">
            {errorFor("checks")}
          </p>
        )}
        <div class="actions">
          <button type="button" onClick={() => setChecks([...checks, { type: "email", stage: "input", action: "redact" }])}>
            Add check
          </button>
          <button type="submit" class="primary">
            {editing ? "Save guardrail" : "Add guardrail"}
          </button>
        </div>
      </form>
    </Panel>
  );
}

/** Guardrail policies: the checks run on requests and replies, for everyone or one key, team, customer or routing rule. */
export function GuardrailsPage() {
  const can = useCan();
  const { confirm } = useFeedback();
  const list = useResource(guardrails.list, []);
  const { save } = useSave(list.reload);
  const [form, setForm] = useState<{ editing?: Guardrail }>();
  const remove = async (guardrail: Guardrail) => {
    if (await confirm(`Delete guardrail ${guardrail.name}?`, <p>Its checks stop running on requests and replies.</p>)) await save(() => guardrails.remove(guardrail.id), `Guardrail ${guardrail.name} deleted`);
  };
  return (
    <>
      <PageHeader title="Guardrails" />
      <div class="toolbar">
        {can("Guardrails:Create") && (
          <button type="button" class="primary" onClick={() => setForm({})}>
            Add guardrail
          </button>
        )}
        <button type="button" onClick={list.reload}>
          Refresh
        </button>
      </div>
      {list.error && <ErrorState error={list.error} retry={list.reload} />}
      {!list.data && !list.error && <Loading />}
      {list.data?.length === 0 && (
        <Empty title="No guardrail yet">
          <p>Add a guardrail to block, redact or log personal data, secrets or your own patterns in requests before a provider sees them, and in replies before the caller does.</p>
        </Empty>
      )}
      {!!list.data?.length && (
        <div class="table-wrap">
          <table aria-label="Guardrails">
            <TableHead columns={["Name", "Applies to", "Checks", "Status"]} actions />
            <tbody>
              {list.data.map((guardrail) => (
                <tr key={guardrail.id}>
                  <td>
                    {guardrail.name}
                    {guardrail.description && <div class="muted small">{guardrail.description}</div>}
                  </td>
                  <td>{scopeText(guardrail)}</td>
                  <td>
                    <ul class="plain">
                      {guardrail.checks.map((check, index) => (
                        <li key={index}>{checkSummary(check)}</li>
                      ))}
                    </ul>
                  </td>
                  <td>
                    <span class={`badge badge-${guardrail.enabled ? "ok" : "neutral"}`}>{guardrail.enabled ? "enabled" : "disabled"}</span>
                  </td>
                  <td class="row-actions">
                    {can("Guardrails:Update") && (
                      <>
                        <button type="button" onClick={() => save(() => guardrails.update(guardrail.id, { enabled: !guardrail.enabled }), `Guardrail ${guardrail.name} ${guardrail.enabled ? "disabled" : "enabled"}`)} aria-label={`${guardrail.enabled ? "Disable" : "Enable"} ${guardrail.name}`}>
                          {guardrail.enabled ? "Disable" : "Enable"}
                        </button>
                        <EditButton name={guardrail.name} onEdit={() => setForm({ editing: guardrail })} />
                      </>
                    )}
                    {can("Guardrails:Delete") && (
                      <DeleteButton name={guardrail.name} onDelete={() => remove(guardrail)} />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {form && <GuardrailForm editing={form.editing} reload={list.reload} onClose={() => setForm(undefined)} />}
    </>
  );
}
