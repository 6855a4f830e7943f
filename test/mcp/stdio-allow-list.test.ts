import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AUTH_CONFIG, bearer, call, login, permissionIds } from "../access/access-client";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { STDIO_SERVER_PATH } from "../support/mcp-stdio-server";
import { type ClientView, clientWhen, listClients } from "./support";

const stdioClient = (name: string, command = process.execPath) => ({ name, connection_type: "stdio", stdio_config: { command, args: [STDIO_SERVER_PATH] }, tools_to_execute: ["*"] });

describe("MCP stdio commands come only from mcp.stdio_allowed_commands in the configuration file", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({});
  });
  afterAll(() => gw.close());

  test("with the default (empty) list, even the setup-token holder cannot register a stdio client", async () => {
    const response = await gw.admin("/api/mcp/client", { method: "POST", json: stdioClient("shell") });
    await expectGatewayError(response, 400, { param: "stdio_config.command", errorType: "caller_stdio_command_not_allowed" });
    expect(await listClients(gw)).toEqual([]);
  });

  test("the list cannot be widened through the API", async () => {
    const response = await gw.admin("/api/config", { method: "PUT", json: { mcp: { stdio_allowed_commands: [process.execPath] } } });
    expect(response.status).toBe(400);
    await expectGatewayError(await gw.admin("/api/mcp/client", { method: "POST", json: stdioClient("shell") }), 400, { param: "stdio_config.command" });
  });
});

describe("a stored stdio client whose command the configuration no longer lists is never started", () => {
  test("after a restart without the command in the list, the client is in error and no process runs", async () => {
    const allowing = await startGateway({ mcp: { stdio_allowed_commands: [process.execPath] } });
    const created = await allowing.admin("/api/mcp/client", { method: "POST", json: stdioClient("local") });
    expect(((await created.json()) as ClientView).state).toBe("connected");
    await allowing.stop();
    const restarted = await startGateway({}, { databaseUrl: allowing.databaseUrl });
    try {
      const [stored] = await listClients(restarted);
      const client = await clientWhen(restarted, stored!.id, (entry) => entry.state === "error");
      expect(client.last_error).toContain("mcp.stdio_allowed_commands");
      expect(client.tools).toEqual([]);
    } finally {
      await restarted.close();
    }
  });
});

describe("registering a stdio client needs the admin, never a narrower role", () => {
  let gw: TestGateway;
  let mcpUser: string;
  beforeAll(async () => {
    // Private addresses opened to every writer, so the HTTP client below is this user's to register.
    gw = await startGateway({ edition: "enterprise", auth: AUTH_CONFIG, mcp: { stdio_allowed_commands: [process.execPath] }, network: { allow_private_addresses: true } });
    const role = await gw.admin("/api/governance/rbac/roles", { method: "POST", json: { name: "mcp-editors", permission_ids: await permissionIds(gw, "MCP:View", "MCP:Create", "MCP:Update") } });
    const { id } = (await role.json()) as { id: number };
    expect((await gw.admin("/api/governance/rbac/users", { method: "POST", json: { username: "mcp-user", role_id: id, password: "mcp-user-password" } })).status).toBe(201);
    mcpUser = await login(gw, "mcp-user", "mcp-user-password");
  }, 30_000);
  afterAll(() => gw.close());

  test("a user whose role holds MCP View and Create gets 403, even for an allowed command", async () => {
    const response = await call(gw, "/api/mcp/client", { method: "POST", headers: bearer(mcpUser), json: stdioClient("local") });
    await expectGatewayError(response, 403, { errorType: "policy_admin_authentication_required" });
    expect(await listClients(gw)).toEqual([]);
  });

  test("the same user may still register an HTTP client, and may not turn it into a stdio one", async () => {
    const created = await call(gw, "/api/mcp/client", { method: "POST", headers: bearer(mcpUser), json: { name: "remote", connection_type: "http", connection_string: "http://127.0.0.1:9/mcp" } });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as ClientView;
    const changed = await call(gw, `/api/mcp/client/${id}`, { method: "PUT", headers: bearer(mcpUser), json: { connection_type: "stdio", stdio_config: { command: process.execPath, args: [STDIO_SERVER_PATH] } } });
    await expectGatewayError(changed, 403, { errorType: "policy_admin_authentication_required" });
  });

  test("the admin registers it and the process runs", async () => {
    const response = await gw.admin("/api/mcp/client", { method: "POST", json: stdioClient("local") });
    expect(response.status).toBe(201);
    expect(((await response.json()) as ClientView).state).toBe("connected");
  });
});
