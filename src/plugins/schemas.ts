import { type Static, Type as t } from "@sinclair/typebox";

export const PluginName = t.String({ pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$", description: "letters, digits, '.', '_' and '-', at most 64" });

/** Passed to the plugin as given (string values `env.NAME` resolved); `fail_closed: true` makes its errors fail the request. */
const PluginConfig = t.Record(t.String(), t.Unknown());

/** A local file path or an http(s) URL of a JavaScript or TypeScript module. */
const PluginPath = t.String({ minLength: 1 });

const PluginOrder = t.Integer({ minimum: 0, maximum: 1_000_000, description: "where a custom plugin runs among the custom plugins: lower first, equal ones in creation order; default 0" });

/** POST /api/plugins, and one entry of config.json `plugins`. */
export const PluginCreateInput = t.Object({
  name: PluginName,
  path: t.Optional(PluginPath),
  enabled: t.Optional(t.Boolean()),
  config: t.Optional(PluginConfig),
  order: t.Optional(PluginOrder),
});
export type PluginCreateInput = Static<typeof PluginCreateInput>;

export const PluginUpdateInput = t.Object({
  path: t.Optional(PluginPath),
  enabled: t.Optional(t.Boolean()),
  config: t.Optional(PluginConfig),
  order: t.Optional(PluginOrder),
});
export type PluginUpdateInput = Static<typeof PluginUpdateInput>;

/** Spec 2.5, plus `order`. `GET /api/plugins` lists them in the order their hooks run. `status.status`: active, disabled or error; `status.types`: llm (pipeline hooks), http (transport hooks). */
export const PluginView = t.Object({
  name: t.String(),
  actualName: t.String(),
  enabled: t.Boolean(),
  config: PluginConfig,
  isCustom: t.Boolean(),
  path: t.String(),
  /** Custom plugins only: built-ins run at a fixed place, before or after all of them. */
  order: t.Optional(t.Integer()),
  status: t.Object({
    name: t.String(),
    status: t.Union([t.Literal("active"), t.Literal("disabled"), t.Literal("error")]),
    logs: t.Array(t.String()),
    types: t.Array(t.Union([t.Literal("llm"), t.Literal("http")])),
  }),
});
export type PluginView = Static<typeof PluginView>;
