import { Elysia, t } from "elysia";
import { noteAudit, principalOf } from "../access";
import { GatewayError } from "../http/errors";
import { PluginList, PluginUpdateInput, PluginView, PluginWritten } from "./schemas";
import { PluginCreateInput } from "../config/sections/plugins";
import type { PluginRegistry } from "./registry";
import { Deleted, replies } from "../http/replies";

const PluginParams = t.Object({ name: t.String() });

/**
 * Spec 4.4: a `path` loads code into the gateway process, so only the admin account, signed in
 * through dashboard authentication, may set one; the setup token (auth disabled or not yet
 * configured), RBAC users and API keys are refused even when they hold Plugins:Create.
 */
function requireGenuineAdmin(request: Request): void {
  const principal = principalOf(request);
  if (principal.type === "admin") return;
  const why = principal.type === "setup" ? "dashboard authentication is disabled or not configured" : "only the admin account may load plugin code";
  const message = `setting a plugin path loads code into the gateway and requires the admin, authenticated through dashboard authentication: ${why}`;
  throw new GatewayError({ status: 403, errorType: "policy_admin_authentication_required", message });
}

/** /api/plugins: built-in and custom plugins with their status (spec 2.5, 4.4). */
export const pluginRoutes = (registry: PluginRegistry) =>
  new Elysia({ name: "plugins", prefix: "/api/plugins" })
    .get("/", () => {
      const plugins = registry.list();
      return { plugins, count: plugins.length };
    }, replies({ 200: PluginList }, { summary: "List plugins", description: "Built-in and custom plugins in the order their hooks run, with their status." }))
    .post(
      "/",
      async ({ body, request, set }) => {
        if (body.path !== undefined && !registry.isBuiltin(body.name)) requireGenuineAdmin(request);
        const plugin = await registry.create(body);
        noteAudit(request, { targetId: plugin.name, after: plugin });
        set.status = 201;
        return { message: "Plugin created successfully", plugin };
      },
      { body: PluginCreateInput, ...replies({ 201: PluginWritten }, { summary: "Create a plugin", description: "A `path` loads code into the gateway: only the admin account may set one." }) },
    )
    .get("/:name", ({ params }) => registry.view(params.name), { params: PluginParams, ...replies({ 200: PluginView }, { summary: "Get a plugin" }) })
    .put(
      "/:name",
      async ({ params, body, request }) => {
        const before = registry.view(params.name);
        if (body.path !== undefined && before.isCustom) requireGenuineAdmin(request);
        const plugin = await registry.update(params.name, body);
        noteAudit(request, { targetId: plugin.name, before, after: plugin });
        return { message: "Plugin updated successfully", plugin };
      },
      { params: PluginParams, body: PluginUpdateInput, ...replies({ 200: PluginWritten }, { summary: "Update a plugin" }) },
    )
    .delete(
      "/:name",
      async ({ params, request }) => {
        const before = registry.view(params.name);
        await registry.remove(params.name);
        noteAudit(request, { targetId: params.name, before });
        return { message: "Plugin deleted successfully" };
      },
      { params: PluginParams, ...replies({ 200: Deleted }, { summary: "Delete a plugin" }) },
    );
