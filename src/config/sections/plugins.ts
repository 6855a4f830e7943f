import { type Static, Type as t } from "@sinclair/typebox";

export const PluginName = t.String({ pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$", description: "letters, digits, '.', '_' and '-', at most 64" });

/** Passed to the plugin as given (string values `env.NAME` resolved); `fail_closed: true` makes its errors fail the request. */
export const PluginConfig = t.Record(t.String(), t.Unknown());

/** A local file path or an http(s) URL of a JavaScript or TypeScript module. */
export const PluginPath = t.String({ minLength: 1 });

export const PluginOrder = t.Integer({ minimum: 0, maximum: 1_000_000, description: "where a custom plugin runs among the custom plugins: lower first, equal ones in creation order; default 0" });

/** POST /api/plugins, and one entry of config.json `plugins`. */
export const PluginCreateInput = t.Object({
  name: PluginName,
  path: t.Optional(PluginPath),
  enabled: t.Optional(t.Boolean()),
  config: t.Optional(PluginConfig),
  order: t.Optional(PluginOrder),
});
export type PluginCreateInput = Static<typeof PluginCreateInput>;
