import { useState } from "preact/hooks";
import { providers, warp } from "../api/endpoints";
import type { WarpConfig } from "../api/types";
import { Checkbox, SelectField, TextField } from "../components/fields";
import { PageHeader } from "../components/layout";
import { ErrorState, Loading } from "../components/states";
import { useResource } from "../lib/use-resource";
import { useSave } from "../lib/use-save";
import { useCan } from "../session";

function ConfigForm({ config, providerNames, reload }: { config: WarpConfig; providerNames: string[]; reload(): void }) {
  const can = useCan();
  const [draft, setDraft] = useState({
    enabled: config.enabled,
    provider: config.provider || providerNames[0] || "",
    model: config.model,
    embedding_provider: config.embedding_provider || providerNames[0] || "",
    embedding_model: config.embedding_model,
    embedding_dimension: String(config.embedding_dimension || ""),
    max_iterations: String(config.max_iterations),
    system_prompt_suffix: config.system_prompt_suffix,
  });
  const { save, errorFor } = useSave(reload);
  const set = (name: keyof typeof draft) => (value: string) => setDraft({ ...draft, [name]: value });
  const submit = async (event: Event) => {
    event.preventDefault();
    await save(
      () =>
        warp.saveConfig({
          ...draft,
          embedding_dimension: Number(draft.embedding_dimension) || 0,
          max_iterations: Number(draft.max_iterations) || 0,
        }),
      "Warp settings saved",
    );
  };
  const providerOptions = ["", ...providerNames];
  return (
    <form class="card" onSubmit={submit} aria-label="Warp settings">
      <p>
        {config.configured ? <span class="badge badge-ok">ready</span> : <span class="badge badge-neutral">not configured</span>} Warp answers questions about this deployment's requests, costs and limits, with the model chosen here, called
        through the gateway like any request. Open it with the Warp button at the top of every page.
      </p>
      <Checkbox label="Enabled" checked={draft.enabled} onChecked={(enabled) => setDraft({ ...draft, enabled })} />
      <div class="grid-2">
        <SelectField label="Provider" value={draft.provider} onValue={set("provider")} options={providerOptions} />
        <TextField label="Model" value={draft.model} onValue={set("model")} error={errorFor("model")} placeholder="gpt-4o-mini" />
        <SelectField label="Embedding provider" value={draft.embedding_provider} onValue={set("embedding_provider")} options={providerOptions} hint="For semantic search over the logs." />
        <TextField label="Embedding model" value={draft.embedding_model} onValue={set("embedding_model")} error={errorFor("embedding_model")} placeholder="text-embedding-3-small" />
        <TextField label="Embedding dimension" inputMode="numeric" value={draft.embedding_dimension} onValue={set("embedding_dimension")} error={errorFor("embedding_dimension")} />
        <TextField label="Tool rounds at most" inputMode="numeric" value={draft.max_iterations} onValue={set("max_iterations")} hint="1 to 20 (0 for the default, 8)." error={errorFor("max_iterations")} />
      </div>
      <TextField label="Added to the system prompt" value={draft.system_prompt_suffix} onValue={set("system_prompt_suffix")} />
      {errorFor("provider") && (
        <p class="field-error" role="alert">
          {errorFor("provider")}
        </p>
      )}
      <button type="submit" class="primary" disabled={!can("Warp:Update")}>
        Save settings
      </button>
    </form>
  );
}

/** The dashboard agent's configuration (spec 4.1). */
export function WarpSettingsPage() {
  const can = useCan();
  const providerNames = () => (can("ModelProvider:View") ? providers.list().then((answer) => answer.providers.map((provider) => provider.provider)) : Promise.resolve([]));
  const data = useResource(() => Promise.all([warp.config(), providerNames()]), []);
  return (
    <>
      <PageHeader title="Warp settings" />
      {data.error && <ErrorState error={data.error} retry={data.reload} />}
      {!data.data && !data.error && <Loading />}
      {data.data && <ConfigForm config={data.data[0]} providerNames={data.data[1]} reload={data.reload} />}
    </>
  );
}
