import { useState } from "preact/hooks";
import { cache, logs, plugins } from "../api/endpoints";
import type { Plugin } from "../api/types";
import { useFeedback } from "../components/feedback";
import { Checkbox, Field, TextField } from "../components/fields";
import { PageHeader } from "../components/layout";
import { Panel } from "../components/panel";
import { Empty, ErrorState, Loading } from "../components/states";
import { formatCount, formatPercent } from "../lib/format";
import { useResource } from "../lib/use-resource";
import { messageOf, useSave } from "../lib/use-save";
import { useCan } from "../session";
import { DeleteButton, EditButton } from "../components/widgets";

function parseConfig(text: string): Record<string, unknown> {
  const value = text.trim() ? (JSON.parse(text) as unknown) : {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new SyntaxError("the configuration must be a JSON object");
  return value as Record<string, unknown>;
}

function PluginForm({ editing, onClose, reload }: { editing?: Plugin; onClose(): void; reload(): void }) {
  const [name, setName] = useState(editing?.name ?? "");
  const [path, setPath] = useState(editing?.path ?? "");
  const [config, setConfig] = useState(JSON.stringify(editing?.config ?? {}, null, 2));
  const [enabled, setEnabled] = useState(editing?.enabled ?? true);
  const [configError, setConfigError] = useState<string>();
  const { save, errorFor } = useSave(reload);
  const submit = async (event: Event) => {
    event.preventDefault();
    let parsed: Record<string, unknown>;
    try {
      parsed = parseConfig(config);
      setConfigError(undefined);
    } catch (error) {
      return setConfigError(messageOf(error));
    }
    const input = { path: path.trim() || undefined, enabled, config: parsed };
    const done = `Plugin ${name} saved`;
    if (await save(() => (editing ? plugins.update(editing.name, editing.isCustom ? input : { enabled, config: parsed }) : plugins.create({ name: name.trim(), ...input })), done)) onClose();
  };
  return (
    <Panel title={editing ? `Edit plugin ${editing.name}` : "Add a plugin"} onClose={onClose}>
      <form onSubmit={submit}>
        {!editing && <TextField label="Name" required value={name} onValue={setName} error={errorFor("name")} />}
        {(!editing || editing.isCustom) && (
          <TextField
            label="Path or URL"
            required={!editing}
            value={path}
            onValue={setPath}
            hint="A local .ts/.js module, or an https URL (private addresses only when the deployment allows them). Only the admin account may set it."
            error={errorFor("path")}
          />
        )}
        <Field label="Configuration (JSON)" error={configError ?? errorFor("config")} hint='Passed to the plugin; "env.NAME" values read the environment.'>
          {(ids) => <textarea {...ids} class="code-input" rows={6} spellcheck={false} value={config} onInput={(event) => setConfig(event.currentTarget.value)} />}
        </Field>
        <Checkbox label="Enabled" checked={enabled} onChecked={setEnabled} />
        <div class="actions">
          <button type="submit" class="primary">
            {editing ? "Save plugin" : "Add plugin"}
          </button>
        </div>
      </form>
    </Panel>
  );
}

/** The custom plugins with `moved` one place earlier (-1) or later (+1), numbered in their new order. */
function reordered(custom: Plugin[], moved: Plugin, by: -1 | 1): Array<{ plugin: Plugin; order: number }> {
  const names = custom.map((plugin) => plugin.name);
  const from = names.indexOf(moved.name);
  names.splice(from, 1);
  names.splice(from + by, 0, moved.name);
  return names.map((name, index) => ({ plugin: custom.find((plugin) => plugin.name === name)!, order: index + 1 }));
}

function PluginList() {
  const can = useCan();
  const { confirm, toast } = useFeedback();
  const list = useResource(plugins.list, []);
  const { save } = useSave(list.reload);
  const [form, setForm] = useState<{ editing?: Plugin }>();
  const custom = list.data?.filter((plugin) => plugin.isCustom) ?? [];
  const remove = async (plugin: Plugin) => {
    if (await confirm(`Delete plugin ${plugin.name}?`, <p>Requests stop passing through it at once.</p>)) await save(() => plugins.remove(plugin.name), `Plugin ${plugin.name} deleted`);
  };
  // Only the plugins whose number changes are saved; a move never restarts a plugin.
  const move = async (plugin: Plugin, by: -1 | 1) => {
    try {
      for (const { plugin: each, order } of reordered(custom, plugin, by)) if (each.order !== order) await plugins.update(each.name, { order });
      toast(`${plugin.name} now runs ${by < 0 ? "earlier" : "later"}`);
    } catch (error) {
      toast(messageOf(error), "error");
    }
    list.reload();
  };
  return (
    <section aria-label="Plugins">
      <div class="toolbar">
        <h2>Plugins</h2>
        {can("Plugins:Create") && (
          <button type="button" class="primary" onClick={() => setForm({})}>
            Add plugin
          </button>
        )}
      </div>
      {list.error && <ErrorState error={list.error} retry={list.reload} />}
      {!list.data && !list.error && <Loading />}
      {list.data?.length === 0 && (
        <Empty title="No plugin">
          <p>Plugins run code on every request (before dispatch, on the response, on the transport). Add one by its path or URL.</p>
        </Empty>
      )}
      {!!list.data?.length && <p class="muted">Requests pass through the plugins in the order listed, responses in reverse. Built-ins keep their place; custom plugins run between them, in the order you set.</p>}
      {list.data?.map((plugin) => (
        <section class="card" key={plugin.name} aria-label={`Plugin ${plugin.name}`}>
          <div class="card-header">
            <div>
              <h3>
                {plugin.name} <span class={`badge badge-${plugin.status.status === "active" ? "ok" : plugin.status.status === "error" ? "bad" : "neutral"}`}>{plugin.status.status}</span>
              </h3>
              <p class="muted small">
                {plugin.isCustom ? `custom #${custom.indexOf(plugin) + 1} · ${plugin.path}` : "built-in"}
                {plugin.status.types.length > 0 && ` · ${plugin.status.types.join(", ")} hooks`}
              </p>
            </div>
            <div class="row-actions">
              {plugin.isCustom && can("Plugins:Update") && custom.length > 1 && (
                <>
                  <button type="button" disabled={custom.indexOf(plugin) === 0} onClick={() => move(plugin, -1)} aria-label={`Run ${plugin.name} earlier`}>
                    ↑
                  </button>
                  <button type="button" disabled={custom.indexOf(plugin) === custom.length - 1} onClick={() => move(plugin, 1)} aria-label={`Run ${plugin.name} later`}>
                    ↓
                  </button>
                </>
              )}
              {can("Plugins:Update") && (
                <>
                  <button type="button" onClick={() => save(() => plugins.update(plugin.name, { enabled: !plugin.enabled }), `Plugin ${plugin.name} ${plugin.enabled ? "disabled" : "enabled"}`)}>
                    {plugin.enabled ? "Disable" : "Enable"}
                  </button>
                  <EditButton name={plugin.name} onEdit={() => setForm({ editing: plugin })} />
                </>
              )}
              {plugin.isCustom && can("Plugins:Delete") && (
                <DeleteButton name={plugin.name} onDelete={() => remove(plugin)} />
              )}
            </div>
          </div>
          {plugin.status.logs.length > 0 && (
            <details>
              <summary>Log ({plugin.status.logs.length} lines)</summary>
              <pre class="code" aria-label={`Log of ${plugin.name}`}>
                {plugin.status.logs.join("\n")}
              </pre>
            </details>
          )}
        </section>
      ))}
      {form && <PluginForm editing={form.editing} reload={list.reload} onClose={() => setForm(undefined)} />}
    </section>
  );
}

/** The response cache's hit rate over the last day, from the request log, and clearing it. */
function ResponseCache() {
  const can = useCan();
  const { toast } = useFeedback();
  const [key, setKey] = useState("");
  const [entry, setEntry] = useState("");
  const canReadLogs = can("Logs:View");
  // The hit rate is counted from the request log.
  const rate = useResource(() => (canReadLogs ? Promise.all([logs.stats({ period: "24h" }), logs.stats({ period: "24h", cache_hit_types: "direct,semantic" })]) : Promise.resolve(undefined)), [canReadLogs]);
  const clear = async (event: Event, work: () => Promise<string>) => {
    event.preventDefault();
    try {
      toast(await work());
      rate.reload();
    } catch (error) {
      toast(messageOf(error), "error");
    }
  };
  const [all, hits] = rate.data ?? [];
  return (
    <section aria-label="Response cache">
      <h2>Response cache</h2>
      {rate.error && <ErrorState error={rate.error} retry={rate.reload} />}
      {!canReadLogs && <p class="muted">The hit rate is counted from the request log, which your role may not read (Logs:View).</p>}
      {all && hits && (
        <div class="figures">
          <section class="figure" aria-label="Cache hit rate">
            <h2>Hit rate, 24 hours</h2>
            <p class="figure-value">{all.total_requests ? formatPercent(hits.total_requests / all.total_requests) : "–"}</p>
          </section>
          <section class="figure" aria-label="Answered from the cache">
            <h2>Answered from the cache</h2>
            <p class="figure-value">{formatCount(hits.total_requests)}</p>
          </section>
        </div>
      )}
      {can("Cache:Delete") ? (
        <div class="grid-2">
          <form class="card" onSubmit={(event) => clear(event, async () => `Cleared ${(await cache.clearKey(key.trim())).deleted} cached responses`)}>
            <TextField label="Cache key" required value={key} onValue={setKey} hint="The x-gw-cache-key requests were cached under: clears every response under it." />
            <button type="submit">Clear by key</button>
          </form>
          <form class="card" onSubmit={(event) => clear(event, async () => (await cache.clearEntry(entry.trim())).message)}>
            <TextField label="Cache entry id" required value={entry} onValue={setEntry} hint="The x-gw-cache-id header of a cached response." />
            <button type="submit">Clear entry</button>
          </form>
        </div>
      ) : (
        <p class="muted">Your role may not clear the cache.</p>
      )}
    </section>
  );
}

export function PluginsPage() {
  return (
    <>
      <PageHeader title="Plugins and cache" />
      <PluginList />
      <ResponseCache />
    </>
  );
}
