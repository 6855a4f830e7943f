import { Elysia } from "elysia";
import type { McpClientRegistry } from "./registry";
import { ClientParams, McpClientCreate, McpClientUpdate } from "./schemas";
import { clientView } from "./view";

/** /api/mcp/clients and /api/mcp/client: the upstream MCP servers the gateway connects to. */
export const mcpClientRoutes = (registry: McpClientRegistry, removeClient: (id: string) => Promise<void>) =>
  new Elysia({ name: "mcp-clients", prefix: "/api/mcp" })
    .get("/clients", () => {
      const clients = registry.list().map(clientView);
      return { clients, count: clients.length };
    })
    .post(
      "/client",
      async ({ body, set }) => {
        set.status = 201;
        return clientView(await registry.create(body));
      },
      { body: McpClientCreate },
    )
    .put("/client/:id", async ({ params, body }) => clientView(await registry.update(params.id, body)), { params: ClientParams, body: McpClientUpdate })
    .delete(
      "/client/:id",
      async ({ params }) => {
        await removeClient(params.id);
        return { message: "MCP client deleted successfully" };
      },
      { params: ClientParams },
    )
    .post("/client/:id/reconnect", async ({ params }) => clientView(await registry.reconnect(params.id)), { params: ClientParams });
