import { useState } from "preact/hooks";
import type { ApiError } from "../api/client";
import { providers } from "../api/endpoints";
import type { NetworkConfig, Provider, ProviderKey, ProviderKeyInput } from "../api/types";
import { useFeedback } from "../components/feedback";
import { Checkbox, SelectField, TextField } from "../components/fields";
import { PageHeader } from "../components/layout";
import { Panel } from "../components/panel";
import { Empty, ErrorState, Loading } from "../components/states";
import { StatusBadge } from "../components/widgets";
import { listOf } from "../lib/format";
import { useResource } from "../lib/use-resource";
import { messageOf, useSave } from "../lib/use-save";
import { useCan } from "../session";
import { TableHead } from "../components/table-head";

/** The providers the gateway knows by name (src/inference/providers/catalog.ts); custom ones reuse one as their base type. */
export const BUILT_IN_PROVIDERS = [
  "openai",
  "anthropic",
  "azure",
  "bedrock",
  "cohere",
  "gemini",
  "vertex",
  "groq",
  "mistral",
  "openrouter",
  "xai",
  "cerebras",
  "perplexity",
  "fireworks",
  "deepseek",
  "moonshot",
  "zai",
  "nebius",
  "parasail",
  "cloudflare",
  "replicate",
  "huggingface",
  "elevenlabs",
  "ollama",
  "vllm",
  "sgl",
];

const aliasesToText = (aliases?: Record<string, string>) =>
  Object.entries(aliases ?? {})
    .map(([from, to]) => `${from}=${to}`)
    .join(", ");
const aliasesFromText = (text: string) => Object.fromEntries(listOf(text).map((pair) => pair.split("=").map((part) => part.trim()) as [string, string]));

interface KeyDraft {
  name: string;
  value: string;
  weight: string;
  models: string;
  blacklisted: string;
  aliases: string;
  enabled: boolean;
}

const draftOf = (key?: ProviderKey): KeyDraft => ({
  name: key?.name ?? "",
  value: key?.value ?? "",
  weight: String(key?.weight ?? 1),
  models: (key?.models ?? ["*"]).join(", "),
  blacklisted: (key?.blacklisted_models ?? []).join(", "),
  aliases: aliasesToText(key?.aliases),
  enabled: key?.enabled ?? true,
});

const keyInput = (draft: KeyDraft): ProviderKeyInput => ({
  name: draft.name.trim() || undefined,
  value: draft.value,
  weight: Number(draft.weight),
  models: listOf(draft.models),
  blacklisted_models: listOf(draft.blacklisted),
  aliases: aliasesFromText(draft.aliases),
  enabled: draft.enabled,
});

function KeyFields({ draft, onDraft, error }: { draft: KeyDraft; onDraft(draft: KeyDraft): void; error?: ApiError }) {
  const set = (name: keyof KeyDraft) => (value: string) => onDraft({ ...draft, [name]: value });
  const errorFor = (field: string) => (error?.param?.endsWith(field) ? error.message : undefined);
  return (
    <>
      <TextField label="Key name" value={draft.name} onValue={set("name")} placeholder="primary" />
      <TextField label="API key" type="password" autocomplete="off" value={draft.value} onValue={set("value")} hint="Stored encrypted; shown redacted afterwards. Leave empty for providers that need none." error={errorFor("value")} />
      <TextField label="Weight" inputMode="decimal" value={draft.weight} onValue={set("weight")} hint="Share of traffic among the provider's keys (0 = only when no other key fits)." error={errorFor("weight")} />
      <TextField label="Models" value={draft.models} onValue={set("models")} hint="Comma-separated; * allows every model; regex:… for a pattern." error={errorFor("models")} />
      <TextField label="Blocked models" value={draft.blacklisted} onValue={set("blacklisted")} error={errorFor("blacklisted_models")} />
      <TextField label="Aliases" value={draft.aliases} onValue={set("aliases")} hint="name=provider-model pairs, comma-separated." />
      <Checkbox label="Enabled" checked={draft.enabled} onChecked={(enabled) => onDraft({ ...draft, enabled })} />
    </>
  );
}

function KeyPanel({ provider, editing, onClose, reload }: { provider: string; editing?: ProviderKey; onClose(): void; reload(): void }) {
  const [draft, setDraft] = useState(draftOf(editing));
  const { save, fieldError } = useSave(reload);
  const submit = async (event: Event) => {
    event.preventDefault();
    const input = keyInput(draft);
    const ok = editing ? await save(() => providers.updateKey(provider, editing.id, { ...editing, ...input }), "Key saved") : await save(() => providers.addKey(provider, input), "Key added");
    if (ok) onClose();
  };
  return (
    <Panel title={editing ? `Edit key ${editing.name}` : `Add a key to ${provider}`} onClose={onClose}>
      <form onSubmit={submit}>
        <KeyFields draft={draft} onDraft={setDraft} error={fieldError} />
        <div class="actions">
          <button type="submit" class="primary">
            {editing ? "Save key" : "Add key"}
          </button>
        </div>
      </form>
    </Panel>
  );
}

function AddProviderPanel({ onClose, reload, existing }: { onClose(): void; reload(): void; existing: string[] }) {
  const available = BUILT_IN_PROVIDERS.filter((name) => !existing.includes(name));
  const [kind, setKind] = useState<"built-in" | "custom">("built-in");
  const [builtIn, setBuiltIn] = useState(available[0] ?? "");
  const [name, setName] = useState("");
  const [baseType, setBaseType] = useState("openai");
  const [baseUrl, setBaseUrl] = useState("");
  const [key, setKey] = useState(draftOf());
  const { save, fieldError } = useSave(reload);
  const submit = async (event: Event) => {
    event.preventDefault();
    const network_config: NetworkConfig | undefined = baseUrl.trim() ? { base_url: baseUrl.trim() } : undefined;
    const provider = kind === "built-in" ? builtIn : name.trim();
    const ok = await save(
      () => providers.create({ provider, network_config, custom_provider_config: kind === "custom" ? { base_provider_type: baseType } : undefined, keys: key.value || key.name ? [keyInput(key)] : undefined }),
      `Provider ${provider} added`,
    );
    if (ok) onClose();
  };
  const errorFor = (field: string) => (fieldError?.param === field ? fieldError.message : undefined);
  return (
    <Panel title="Add a provider" onClose={onClose}>
      <form onSubmit={submit}>
        <fieldset class="radio-group">
          <legend>Kind</legend>
          <label>
            <input type="radio" name="kind" checked={kind === "built-in"} onChange={() => setKind("built-in")} /> Built-in provider
          </label>
          <label>
            <input type="radio" name="kind" checked={kind === "custom"} onChange={() => setKind("custom")} /> Custom provider (any API in a known format)
          </label>
        </fieldset>
        {kind === "built-in" ? (
          <SelectField label="Provider" value={builtIn} onValue={setBuiltIn} options={available} />
        ) : (
          <>
            <TextField label="Name" required value={name} onValue={setName} placeholder="my-llm" hint="Lower case, digits, . _ -; requests name it as name/model." error={errorFor("provider")} />
            <SelectField label="API format" value={baseType} onValue={setBaseType} options={BUILT_IN_PROVIDERS} hint="The built-in provider whose wire format the API speaks." />
          </>
        )}
        <TextField label="Base URL" type="url" value={baseUrl} onValue={setBaseUrl} placeholder={kind === "custom" ? "https://llm.internal/v1" : "default of the provider"} required={kind === "custom"} error={errorFor("network_config.base_url")} />
        <h3>First key</h3>
        <KeyFields draft={key} onDraft={setKey} error={fieldError} />
        <div class="actions">
          <button type="submit" class="primary">
            Add provider
          </button>
        </div>
      </form>
    </Panel>
  );
}

function NetworkPanel({ provider, onClose, reload }: { provider: Provider; onClose(): void; reload(): void }) {
  const network = provider.network_config ?? {};
  const [baseUrl, setBaseUrl] = useState(network.base_url ?? "");
  const [timeout, setTimeoutValue] = useState(String(network.default_request_timeout_in_seconds ?? ""));
  const [retries, setRetries] = useState(String(network.max_retries ?? ""));
  const [headers, setHeaders] = useState(aliasesToText(network.extra_headers));
  const { save, fieldError } = useSave(reload);
  const submit = async (event: Event) => {
    event.preventDefault();
    const network_config: NetworkConfig = {
      ...network,
      base_url: baseUrl.trim() || undefined,
      default_request_timeout_in_seconds: timeout ? Number(timeout) : undefined,
      max_retries: retries ? Number(retries) : undefined,
      extra_headers: aliasesFromText(headers),
    };
    if (await save(() => providers.update(provider.provider, { network_config }), "Network settings saved")) onClose();
  };
  const errorFor = (field: string) => (fieldError?.param?.endsWith(field) ? fieldError.message : undefined);
  return (
    <Panel title={`Network settings of ${provider.provider}`} onClose={onClose}>
      <form onSubmit={submit}>
        <TextField label="Base URL" type="url" value={baseUrl} onValue={setBaseUrl} error={errorFor("base_url")} />
        <TextField label="Request timeout (seconds)" inputMode="numeric" value={timeout} onValue={setTimeoutValue} error={errorFor("default_request_timeout_in_seconds")} />
        <TextField label="Retries" inputMode="numeric" value={retries} onValue={setRetries} hint="0 to 10." error={errorFor("max_retries")} />
        <TextField label="Extra headers" value={headers} onValue={setHeaders} hint="name=value pairs, comma-separated." />
        <div class="actions">
          <button type="submit" class="primary">
            Save
          </button>
        </div>
      </form>
    </Panel>
  );
}

function KeyRow({ provider, keyRow, reload, onEdit }: { provider: string; keyRow: ProviderKey; reload(): void; onEdit(): void }) {
  const can = useCan();
  const { toast, confirm } = useFeedback();
  const { save } = useSave(reload);
  const test = async () => {
    try {
      const checked = await providers.testKey(provider, keyRow.id);
      toast(checked.status === "success" ? `Key ${keyRow.name} works: ${checked.reachable_models.length} models reachable` : `Key ${keyRow.name} failed: ${checked.description}`, checked.status === "success" ? "success" : "error");
      reload();
    } catch (error) {
      toast(messageOf(error), "error");
    }
  };
  const remove = async () => {
    if (await confirm(`Delete key ${keyRow.name}?`, <p>Requests stop using it at once.</p>)) await save(() => providers.removeKey(provider, keyRow.id), `Key ${keyRow.name} deleted`);
  };
  const canUpdate = can("ModelProvider:Update");
  return (
    <tr>
      <td>
        {keyRow.name}
        {!keyRow.enabled && <span class="badge badge-neutral">disabled</span>}
        <div class="muted small">{keyRow.value || "no secret"}</div>
      </td>
      <td>
        <StatusBadge status={keyRow.status || "unchecked"} />
        {keyRow.description && <div class="muted small">{keyRow.description}</div>}
      </td>
      <td class="number">{keyRow.weight}</td>
      <td>{(keyRow.models ?? []).join(", ") || "*"}</td>
      <td class="row-actions">
        <button type="button" onClick={test} disabled={!canUpdate} aria-label={`Test key ${keyRow.name}`}>
          Test
        </button>
        <button type="button" onClick={onEdit} disabled={!canUpdate} aria-label={`Edit key ${keyRow.name}`}>
          Edit
        </button>
        <button type="button" disabled={!canUpdate} onClick={() => save(() => providers.updateKey(provider, keyRow.id, { ...keyRow, enabled: !keyRow.enabled }), `Key ${keyRow.name} ${keyRow.enabled ? "disabled" : "enabled"}`)}>
          {keyRow.enabled ? "Disable" : "Enable"}
        </button>
        {can("ModelProvider:Delete") && (
          <button type="button" class="danger" onClick={remove} aria-label={`Delete key ${keyRow.name}`}>
            Delete
          </button>
        )}
      </td>
    </tr>
  );
}

function ProviderCard({ provider, reload }: { provider: Provider; reload(): void }) {
  const can = useCan();
  const { confirm } = useFeedback();
  const { save } = useSave(reload);
  const [panel, setPanel] = useState<{ kind: "network" } | { kind: "key"; key?: ProviderKey }>();
  const remove = async () => {
    if (await confirm(`Delete provider ${provider.provider}?`, <p>Its {provider.keys.length} keys are deleted with it; requests for its models fail until it is added again.</p>)) {
      await save(() => providers.remove(provider.provider), `Provider ${provider.provider} deleted`);
    }
  };
  return (
    <section class="card" aria-label={`Provider ${provider.provider}`}>
      <div class="card-header">
        <div>
          <h2>{provider.provider}</h2>
          <p class="muted small">
            {provider.custom_provider_config ? `custom, ${provider.custom_provider_config.base_provider_type} format` : "built-in"}
            {provider.network_config?.base_url && ` · ${provider.network_config.base_url}`}
          </p>
          {provider.panic?.last_at && (
            <p class="small" role="status">
              Panic: {provider.panic.requests} requests sent to keys whose breakers were open, the last at {new Date(provider.panic.last_at).toLocaleString()}
            </p>
          )}
        </div>
        <div class="row-actions">
          {can("ModelProvider:Update") && (
            <>
              <button type="button" onClick={() => setPanel({ kind: "key" })}>
                Add key
              </button>
              <button type="button" onClick={() => setPanel({ kind: "network" })}>
                Network settings
              </button>
            </>
          )}
          {can("ModelProvider:Delete") && (
            <button type="button" class="danger" onClick={remove}>
              Delete provider
            </button>
          )}
        </div>
      </div>
      {provider.keys.length === 0 ? (
        <p class="muted">
          {provider.key_optional
            ? `No key: ${provider.provider} is reached without one, and no auth header is sent. Add a key only if the server asks for one.`
            : `No key yet: add one so requests can reach ${provider.provider}.`}
        </p>
      ) : (
        <div class="table-wrap">
          <table aria-label={`Keys of ${provider.provider}`}>
            <TableHead columns={["Key", "Health", { label: "Weight", number: true }, "Models"]} actions />
            <tbody>
              {provider.keys.map((key) => (
                <KeyRow key={key.id} provider={provider.provider} keyRow={key} reload={reload} onEdit={() => setPanel({ kind: "key", key })} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {panel?.kind === "network" && <NetworkPanel provider={provider} reload={reload} onClose={() => setPanel(undefined)} />}
      {panel?.kind === "key" && <KeyPanel provider={provider.provider} editing={panel.key} reload={reload} onClose={() => setPanel(undefined)} />}
    </section>
  );
}

export function ProvidersPage() {
  const can = useCan();
  const list = useResource(() => providers.list().then((answer) => answer.providers), []);
  const [adding, setAdding] = useState(false);
  return (
    <>
      <PageHeader title="Providers">
        {can("ModelProvider:Create") && (
          <button type="button" class="primary" onClick={() => setAdding(true)}>
            Add provider
          </button>
        )}
      </PageHeader>
      {list.error && <ErrorState error={list.error} retry={list.reload} />}
      {!list.data && !list.error && <Loading what="Loading providers" />}
      {list.data?.length === 0 && (
        <Empty title="No provider yet">
          <p>Add a provider with an API key (OpenAI, Anthropic, …) or a custom one pointing at any compatible API; requests then name its models as provider/model.</p>
        </Empty>
      )}
      {list.data?.map((provider) => (
        <ProviderCard key={provider.provider} provider={provider} reload={list.reload} />
      ))}
      {adding && <AddProviderPanel existing={list.data?.map((provider) => provider.provider) ?? []} reload={list.reload} onClose={() => setAdding(false)} />}
    </>
  );
}
