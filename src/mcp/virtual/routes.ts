import { Elysia } from "elysia";
import { noteAudit } from "../../access";
import { Deleted, replies } from "../../http/replies";
import { VirtualServer, VirtualServerCreate, VirtualServerList, VirtualServerParams, VirtualServerUpdate } from "./schemas";
import type { VirtualServerStore } from "./store";
import { virtualServerView } from "./view";

/** /api/mcp/virtual-servers: named bundles of upstream tools, resources and prompts, each served at /mcp/v/{slug}. */
export const virtualServerRoutes = (store: VirtualServerStore) =>
  new Elysia({ name: "mcp-virtual-servers", prefix: "/api/mcp/virtual-servers" })
    .get(
      "/",
      () => {
        const servers = store.rows.all().map(virtualServerView);
        return { virtual_servers: servers, count: servers.length };
      },
      replies({ 200: VirtualServerList }, { summary: "List virtual MCP servers" }),
    )
    .post(
      "/",
      async ({ body, request, set }) => {
        const server = virtualServerView(await store.create(body));
        noteAudit(request, { targetId: server.id, after: server });
        set.status = 201;
        return server;
      },
      {
        body: VirtualServerCreate,
        ...replies({ 201: VirtualServer }, { summary: "Create a virtual MCP server", description: "Two tools (or prompts) under one name, or a client that does not exist, are a 400 naming the field." }),
      },
    )
    .get("/:id", ({ params }) => virtualServerView(store.rows.require(params.id)), { params: VirtualServerParams, ...replies({ 200: VirtualServer }, { summary: "Get a virtual MCP server" }) })
    .put(
      "/:id",
      async ({ params, body, request }) => {
        const before = virtualServerView(store.rows.require(params.id));
        const server = virtualServerView(await store.update(params.id, body));
        noteAudit(request, { targetId: server.id, before, after: server });
        return server;
      },
      { params: VirtualServerParams, body: VirtualServerUpdate, ...replies({ 200: VirtualServer }, { summary: "Update a virtual MCP server" }) },
    )
    .delete(
      "/:id",
      async ({ params, request }) => {
        const before = virtualServerView(await store.remove(params.id));
        noteAudit(request, { targetId: params.id, before });
        return { message: "Virtual MCP server deleted successfully" };
      },
      { params: VirtualServerParams, ...replies({ 200: Deleted }, { summary: "Delete a virtual MCP server" }) },
    );
