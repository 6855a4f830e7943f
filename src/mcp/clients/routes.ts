import { Elysia } from "elysia";
import { principalOf } from "../../access";
import { badRequest, GatewayError } from "../../http/errors";
import { checkWrittenAddresses, mayReachPrivateNetwork } from "../../outbound/reach";
import { stdioCommandAllowed } from "../connection/upstream";
import type { McpClientRegistry } from "./registry";
import { ClientParams, McpClientCreate, McpClientUpdate } from "./schemas";
import { type OAuthViewOf, viewWith } from "./view";
import { Deleted, replies } from "../../http/replies";
import { McpClient, McpClientList } from "./replies";
import { changesOpenApiSource, checkOpenApiWrite } from "../openapi/write-check";
import { mergedInput } from "./store";

/**
 * A stdio client runs a command as the gateway's user: only the local admin (the admin account,
 * or the setup-token holder) may write one, whatever RBAC role or API key scope another caller
 * holds, and only a command the configuration file lists.
 */
function checkStdioWrite(request: Request, body: McpClientUpdate, registry: McpClientRegistry): void {
  if (body.stdio_config === undefined && body.connection_type !== "stdio") return;
  if (!principalOf(request).localAdmin) {
    const message = "a stdio MCP client runs a command on the gateway's host: only the admin may register or change one";
    throw new GatewayError({ status: 403, errorType: "policy_admin_authentication_required", message });
  }
  const command = body.stdio_config?.command;
  if (command !== undefined && !stdioCommandAllowed(registry.reach, command)) {
    throw badRequest(`the command '${command}' is not in mcp.stdio_allowed_commands of the configuration file`, "stdio_config.command", "caller_stdio_command_not_allowed");
  }
}

/** The reach of private addresses a write leaves the client with: its writer's when it carries the server's address, else as it was (undefined). */
async function reachWritten(request: Request, body: McpClientUpdate, registry: McpClientRegistry): Promise<boolean | undefined> {
  const principal = principalOf(request);
  // An inline OpenAPI document names the API's address too.
  const carried = (await checkWrittenAddresses(body, principal, registry.reach.outbound)) || body.openapi?.document !== undefined;
  return carried ? mayReachPrivateNetwork(principal, registry.reach.outbound) : undefined;
}

/** /api/mcp/clients and /api/mcp/client: the upstream MCP servers the gateway connects to. */
export const mcpClientRoutes = (registry: McpClientRegistry, removeClient: (id: string) => Promise<void>, oauthOf: OAuthViewOf) => {
  const clientView = viewWith(oauthOf);
  return new Elysia({ name: "mcp-clients", prefix: "/api/mcp" })
    .get("/clients", () => {
      const clients = registry.list().map(clientView);
      return { clients, count: clients.length };
    }, replies({ 200: McpClientList }, { summary: "List MCP clients", description: "Every MCP server the gateway connects to, with its state, tools, resources and prompts." }))
    .post(
      "/client",
      async ({ body, set, request }) => {
        checkStdioWrite(request, body, registry);
        const reach = (await reachWritten(request, body, registry)) ?? mayReachPrivateNetwork(principalOf(request), registry.reach.outbound);
        await checkOpenApiWrite(body, principalOf(request), registry.reach.outbound);
        set.status = 201;
        return clientView(await registry.create(body, reach));
      },
      { body: McpClientCreate, ...replies({ 201: McpClient }, { summary: "Add an MCP client", description: "The gateway connects to it at once; the reply shows the connection's state." }) },
    )
    .put(
      "/client/:id",
      async ({ params, body, request }) => {
        checkStdioWrite(request, body, registry);
        const reach = await reachWritten(request, body, registry);
        if (changesOpenApiSource(body)) await checkOpenApiWrite(mergedInput(registry.require(params.id).config, body), principalOf(request), registry.reach.outbound);
        return clientView(await registry.update(params.id, body, reach));
      },
      { params: ClientParams, body: McpClientUpdate, ...replies({ 200: McpClient }, { summary: "Update an MCP client" }) },
    )
    .delete(
      "/client/:id",
      async ({ params }) => {
        await removeClient(params.id);
        return { message: "MCP client deleted successfully" };
      },
      { params: ClientParams, ...replies({ 200: Deleted }, { summary: "Remove an MCP client" }) },
    )
    .post("/client/:id/reconnect", async ({ params }) => clientView(await registry.reconnect(params.id)), { params: ClientParams, ...replies({ 200: McpClient }, { summary: "Reconnect an MCP client" }) });
};
