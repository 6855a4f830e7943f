import { isDeepStrictEqual } from "node:util";
import type { EnvReader } from "../config/env-reference";
import { ChangeQueue } from "../db/change-queue";
import type { PluginRow } from "../db/schema";
import { badRequest, conflict, notFound } from "../http/errors";
import type { InferenceHooks } from "../inference/hooks";
import { type GuardedHooks, guardHooks } from "./guarded-hooks";
import { importPluginModule, isRemotePath, type ModuleSources } from "./module-loader";
import { PluginLog } from "./plugin-log";
import type { PluginUpdateInput, PluginView } from "./schemas";
import type { PluginCreateInput } from "../config/sections/plugins";
import type { PluginSettings, PluginStore } from "./store";
import type { BuiltinPlugin, HttpHooks, PluginHooks, PluginHost, PluginState, PluginType } from "./types";

interface ActiveInstance {
  hooks: PluginHooks;
  guarded: GuardedHooks;
}

interface PluginEntry {
  readonly name: string;
  readonly builtin?: BuiltinPlugin;
  readonly log: PluginLog;
  /** "" for a built-in. */
  path: string;
  enabled: boolean;
  config: Record<string, unknown>;
  /** A custom plugin's place among the custom plugins (lower first); 0 for a built-in. */
  order: number;
  /** Whether the plugins table has a row for it (a built-in gets one when first changed). */
  persisted: boolean;
  actualName: string;
  state: PluginState;
  active?: ActiveInstance;
}

export interface PluginRegistryOptions {
  store: PluginStore;
  /** In hook order within their placement. */
  builtins: readonly BuiltinPlugin[];
  sources: ModuleSources;
  /** `env.NAME` config values, under the configuration's allow-list. */
  readEnv: EnvReader;
}

function newEntry(name: string, settings: PluginSettings, order: number, persisted: boolean, builtin?: BuiltinPlugin): PluginEntry {
  const { path, enabled, config } = settings;
  return { name, builtin, log: new PluginLog(name), path: path ?? "", enabled, config, order, persisted, actualName: name, state: "disabled" };
}

const sameSettings = (entry: PluginEntry, settings: PluginSettings) =>
  entry.path === (settings.path ?? "") && entry.enabled === settings.enabled && isDeepStrictEqual(entry.config, settings.config);

function resolveReferences(value: unknown, readEnv: EnvReader): unknown {
  if (typeof value === "string") return readEnv(value);
  if (Array.isArray(value)) return value.map((item) => resolveReferences(item, readEnv));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolveReferences(item, readEnv)]));
  return value;
}

function typesOf(hooks: PluginHooks): PluginType[] {
  const types: PluginType[] = [];
  if (hooks.admit || hooks.transformResponse || hooks.settle) types.push("llm");
  if (hooks.onHttpRequest || hooks.onHttpResponse) types.push("http");
  return types;
}

function checkedCustomPath(path: string | undefined): string {
  if (path === undefined) throw badRequest("path is required: a custom plugin is a module loaded from a local path or an http(s) URL", "path");
  if (isRemotePath(path) && !/^https?:\/\//i.test(path)) throw badRequest("path: remote plugins are fetched only over http or https", "path");
  return path;
}

async function closeInstance(entry: PluginEntry, instance: ActiveInstance | undefined): Promise<void> {
  try {
    await instance?.hooks.close?.();
  } catch (error) {
    entry.log.error("close failed", error);
  }
}

/**
 * Every plugin, built-in or custom, with its settings, status and recent logs, and the hooks
 * of the active ones in pipeline order: built-ins placed before the custom plugins, the custom
 * plugins by `order` (equal ones in creation order), then the other built-ins. Changes are
 * applied one at a time; a change of order alone moves the plugin without restarting it.
 */
export class PluginRegistry {
  private readonly entries = new Map<string, PluginEntry>();
  private inference: readonly InferenceHooks[] = [];
  private http: readonly HttpHooks[] = [];
  private readonly changes = new ChangeQueue();

  constructor(private readonly options: PluginRegistryOptions) {}

  /** The pipeline's hooks; read on every request, so a change applies to the next one. */
  get inferenceHooks(): readonly InferenceHooks[] {
    return this.inference;
  }

  get httpHooks(): readonly HttpHooks[] {
    return this.http;
  }

  /**
   * Brings the plugins in line with the plugins table (the first load, or another node's change):
   * built-ins with their saved settings, then the custom plugins; a plugin whose settings did not
   * change keeps its instance, the others start again. One that fails to load keeps status `error`.
   */
  load(): Promise<void> {
    return this.changes.run(async () => {
      const rows = await this.options.store.all();
      const wanted = this.wanted(rows);
      const removed = [...this.entries.values()].filter((entry) => !wanted.some(({ name }) => name === entry.name));
      for (const entry of removed) this.entries.delete(entry.name);
      const replaced: Array<[PluginEntry, ActiveInstance | undefined]> = [];
      for (const { name, settings, order, builtin } of wanted) {
        const entry = this.entries.get(name);
        const persisted = rows.some((row) => row.name === name);
        if (entry) entry.order = order;
        if (entry && sameSettings(entry, settings)) entry.persisted = persisted;
        else if (entry) replaced.push([entry, await this.reconfigure(entry, settings, persisted)]);
        else await this.add(newEntry(name, settings, order, persisted, builtin));
      }
      this.compose();
      for (const entry of removed) await closeInstance(entry, entry.active);
      for (const [entry, previous] of replaced) await closeInstance(entry, previous);
    });
  }

  /** A config.json `plugins` entry: applied once, while the database knows nothing of that name. */
  async seed(seed: PluginCreateInput): Promise<void> {
    const entry = this.entries.get(seed.name);
    if (!entry) await this.create(seed);
    else if (entry.builtin && !entry.persisted) await this.update(seed.name, { enabled: seed.enabled, config: seed.config });
  }

  /** In the order their hooks run. */
  list(): PluginView[] {
    return this.inPipelineOrder().map((entry) => this.viewOf(entry));
  }

  view(name: string): PluginView {
    return this.viewOf(this.require(name));
  }

  isBuiltin(name: string): boolean {
    return Boolean(this.entries.get(name)?.builtin);
  }

  create(input: PluginCreateInput): Promise<PluginView> {
    return this.changes.run(async () => {
      if (this.entries.has(input.name)) throw conflict(`plugin '${input.name}' already exists`, "name");
      const settings = { path: checkedCustomPath(input.path), enabled: input.enabled ?? true, config: input.config ?? {} };
      const order = input.order ?? 0;
      await this.options.store.insert(input.name, settings, order);
      const entry = newEntry(input.name, settings, order, true);
      await this.add(entry);
      this.compose();
      return this.viewOf(entry);
    });
  }

  /**
   * Replaces the given settings and reloads the plugin; the previous instance is closed once the
   * new hooks are in place. A change of `order` alone moves the plugin's hooks and keeps its instance.
   */
  update(name: string, input: PluginUpdateInput): Promise<PluginView> {
    return this.changes.run(async () => {
      const entry = this.require(name);
      if (entry.builtin && input.path !== undefined) throw badRequest(`'${name}' is a built-in plugin: it has no path`, "path");
      if (entry.builtin && input.order !== undefined) throw badRequest(`'${name}' is a built-in plugin: it runs at a fixed place, before or after the custom plugins`, "order");
      const config = input.config ?? entry.config;
      entry.builtin?.validateConfig?.(config);
      const path = entry.builtin ? "" : checkedCustomPath(input.path ?? entry.path);
      const enabled = input.enabled ?? entry.enabled;
      const settings = { path: entry.builtin ? null : path, enabled, config };
      const order = input.order ?? entry.order;
      await this.options.store.save(name, settings, order);
      entry.order = order;
      const orderOnly = input.order !== undefined && input.path === undefined && input.enabled === undefined && input.config === undefined;
      const previous = orderOnly && entry.persisted ? undefined : await this.reconfigure(entry, settings, true);
      this.compose();
      await closeInstance(entry, previous);
      return this.viewOf(entry);
    });
  }

  remove(name: string): Promise<void> {
    return this.changes.run(async () => {
      const entry = this.require(name);
      if (entry.builtin) throw badRequest(`'${name}' is a built-in plugin: it cannot be deleted, disable it with PUT {"enabled": false}`, "name", "caller_builtin_plugin");
      await this.options.store.remove(name);
      this.entries.delete(name);
      this.compose();
      await closeInstance(entry, entry.active);
    });
  }

  async close(): Promise<void> {
    await this.changes.idle();
    for (const entry of this.entries.values()) await closeInstance(entry, entry.active);
  }

  /** Every plugin the table calls for: each built-in (its row, if any, holds its settings), then the custom plugins. */
  private wanted(rows: readonly PluginRow[]): Array<{ name: string; settings: PluginSettings; order: number; builtin?: BuiltinPlugin }> {
    const builtins = this.options.builtins.map((builtin) => {
      const row = rows.find((candidate) => candidate.name === builtin.name);
      return { name: builtin.name, builtin, order: 0, settings: { path: null, enabled: row?.enabled ?? true, config: row?.config ?? {} } };
    });
    const custom = rows.filter((row) => row.path !== null && !builtins.some((builtin) => builtin.name === row.name));
    return [...builtins, ...custom.map((row) => ({ name: row.name, settings: row, order: row.runOrder }))];
  }

  private async add(entry: PluginEntry): Promise<void> {
    this.entries.set(entry.name, entry);
    await this.activate(entry);
  }

  /** Applies new settings and starts the plugin again; answers the previous instance, for the caller to close once the new hooks are in place. */
  private async reconfigure(entry: PluginEntry, { path, enabled, config }: PluginSettings, persisted: boolean): Promise<ActiveInstance | undefined> {
    Object.assign(entry, { path: path ?? "", enabled, config, persisted });
    const previous = entry.active;
    await this.activate(entry);
    return previous;
  }

  private require(name: string): PluginEntry {
    const entry = this.entries.get(name);
    if (!entry) throw notFound(`plugin '${name}' not found`, "caller_plugin_not_found");
    return entry;
  }

  private async activate(entry: PluginEntry): Promise<void> {
    entry.active = undefined;
    entry.state = "disabled";
    if (!entry.enabled) return;
    try {
      const host: PluginHost = { log: (message) => entry.log.add(message) };
      const config = resolveReferences(entry.config, this.options.readEnv) as Record<string, unknown>;
      const hooks = entry.builtin ? entry.builtin.create(config, host) : await this.instantiate(entry, config, host);
      const failClosed = entry.builtin?.failClosed ?? entry.config.fail_closed === true;
      entry.active = { hooks, guarded: guardHooks(entry.name, hooks, failClosed, entry.log) };
      entry.state = "active";
    } catch (error) {
      entry.state = "error";
      entry.log.error(entry.builtin ? "failed to start" : `failed to load from ${entry.path}`, error);
    }
  }

  private async instantiate(entry: PluginEntry, config: Record<string, unknown>, host: PluginHost): Promise<PluginHooks> {
    const module = await importPluginModule(entry.path, this.options.sources);
    entry.actualName = module.name;
    const hooks = await module.create(config, host);
    if (!hooks || typeof hooks !== "object") throw new Error("create(config, host) must return an object of hooks");
    entry.log.add(`loaded '${module.name}' from ${entry.path}`);
    return hooks;
  }

  /** The map holds custom plugins in creation order, and the sort is stable: equal orders keep it. */
  private inPipelineOrder(): PluginEntry[] {
    const entries = [...this.entries.values()];
    return [
      ...entries.filter((entry) => entry.builtin?.placement === "before-custom"),
      ...entries.filter((entry) => !entry.builtin).sort((a, b) => a.order - b.order),
      ...entries.filter((entry) => entry.builtin?.placement === "after-custom"),
    ];
  }

  private compose(): void {
    const ordered = this.inPipelineOrder().flatMap((entry) => (entry.active ? [entry.active.guarded] : []));
    this.inference = ordered.map((guarded) => guarded.inference);
    this.http = ordered.map((guarded) => guarded.http).filter((http) => http.onHttpRequest || http.onHttpResponse);
  }

  private viewOf(entry: PluginEntry): PluginView {
    return {
      name: entry.name,
      actualName: entry.actualName,
      enabled: entry.enabled,
      config: entry.config,
      isCustom: !entry.builtin,
      path: entry.path,
      ...(!entry.builtin && { order: entry.order }),
      status: { name: entry.name, status: entry.state, logs: entry.log.snapshot(), types: entry.active ? typesOf(entry.active.hooks) : [] },
    };
  }
}
