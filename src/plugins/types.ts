import type { InferenceHooks } from "../inference/hooks";

type MaybePromise<T> = T | Promise<T>;

/** Hooks on the HTTP transport of the inference routes, around routing and body parsing. */
export interface HttpHooks {
  /** Before routing: may answer the request itself (the later plugins and the route are skipped). */
  onHttpRequest?(request: Request): MaybePromise<Response | void>;
  /** After the route answered, in reverse plugin order: may replace the response. */
  onHttpResponse?(request: Request, response: Response): MaybePromise<Response | void>;
}

/** What a plugin instance provides: pipeline hooks (see InferenceHooks), transport hooks, cleanup. */
export interface PluginHooks extends Omit<InferenceHooks, "name">, HttpHooks {
  /** Called when the plugin is disabled, reconfigured, deleted, or the gateway stops. */
  close?(): MaybePromise<void>;
}

/** What the gateway offers a plugin instance. */
export interface PluginHost {
  /** Adds a line to the plugin's `status.logs`. */
  log(message: string): void;
}

/**
 * The default export of a plugin module (a .js or .ts file, local or fetched over http(s)):
 * `export default { name: "my-plugin", create(config, host) { return { admit(context) {...} } } }`.
 */
export interface GatewayPluginModule {
  /** The plugin's own name, reported as `actualName`. */
  name: string;
  create(config: Record<string, unknown>, host: PluginHost): MaybePromise<PluginHooks>;
}

/** A plugin that ships with the gateway. */
export interface BuiltinPlugin {
  name: string;
  /** Governance runs before the custom plugins; the cache, logging and telemetry after them. */
  placement: "before-custom" | "after-custom";
  /** Whether an unexpected error in its hooks fails the request (else it is logged and skipped). */
  failClosed: boolean;
  /** Checks a config given by PUT /api/plugins/{name} or config.json; throws a 400 naming the field. */
  validateConfig?(config: Record<string, unknown>): void;
  create(config: Record<string, unknown>, host: PluginHost): PluginHooks;
}

export type PluginState = "active" | "disabled" | "error";

/** `llm`: pipeline hooks; `http`: transport hooks. */
export type PluginType = "llm" | "http";
