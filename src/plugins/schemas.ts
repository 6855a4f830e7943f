import { type Static, Type as t } from "@sinclair/typebox";
import { PluginConfig, PluginOrder, PluginPath } from "../config/sections/plugins";

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

export const PluginList = t.Object({ plugins: t.Array(PluginView, { description: "In the order their hooks run." }), count: t.Integer() });
/** What a create or an update answers. */
export const PluginWritten = t.Object({ message: t.String({ description: "What was done, in words." }), plugin: PluginView });
