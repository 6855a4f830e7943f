import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Browser, DASHBOARD_AUTH, launchBrowser, signIn, type WatchedPage } from "../support/browser";
import { eventually } from "../support/eventually";
import { startGateway, type TestGateway } from "../support/gateway";
import { type McpHttpServer, startMcpHttpServer } from "../support/mcp-http-server";
import { type MockOAuthMcpServer, startMockOAuthMcpServer } from "../support/mock-oauth-mcp-server";
import { createMcpClient, createVirtualKey, executeTool, FAST_MCP } from "../mcp/support";

let hosted: MockOAuthMcpServer;
let perUser: McpHttpServer;
let gw: TestGateway;
let browser: Browser;
let watched: WatchedPage;

beforeAll(async () => {
  hosted = startMockOAuthMcpServer();
  perUser = startMcpHttpServer({ requireHeader: { name: "x-user-token", accepted: () => ["token-of-alice"] } });
  gw = await startGateway({ auth: DASHBOARD_AUTH, mcp: FAST_MCP } as never);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
  await hosted?.stop();
  await perUser?.stop();
});

describe("MCP page: OAuth servers and per-user flows", () => {
  test("Connect takes the administrator through the server's consent page and back to a connected server with its tools", async () => {
    await createMcpClient(gw, { name: "hosted", connection_type: "http", connection_string: hosted.url, auth_type: "oauth", tools_to_execute: ["*"] });
    watched = await browser.open(`${gw.url}/ui/mcp`);
    const page = watched.page;
    await signIn(page);
    const card = page.getByRole("region", { name: "MCP server hosted" });
    await card.getByLabel("OAuth of hosted").getByText("needs consent").waitFor();

    await card.getByRole("button", { name: "Connect hosted" }).click();
    await page.getByRole("heading", { name: /asks for access to your tools/ }).waitFor();
    await page.getByRole("link", { name: "Allow" }).click();

    await page.waitForURL(`${gw.url}/ui/mcp?connected=hosted`);
    const back = page.getByRole("region", { name: "MCP server hosted" });
    await eventually(
      async () => {
        await page.getByRole("button", { name: "Refresh" }).click();
        return back.getByRole("table", { name: "Tools of hosted" }).getByRole("cell", { name: "get_weather" }).count();
      },
      (count) => count === 1,
      10_000,
    );
    await back.getByLabel("OAuth of hosted").getByText("authorized").waitFor();
    await back.getByRole("button", { name: "Connect hosted" }).getByText("Connect again").waitFor();
    expect(hosted.registrations).toHaveLength(1);
    expect(hosted.acceptedTokens.length).toBeGreaterThan(0);
    expect(watched.problems()).toEqual([]);
  });

  test("a caller's per-user header flow waiting for values is listed with its server and virtual key", async () => {
    await createMcpClient(gw, { name: "notes", connection_type: "http", connection_string: perUser.url, auth_type: "per_user_headers", per_user_header_keys: ["x-user-token"], tools_to_execute: ["*"] });
    const alice = await createVirtualKey(gw, "alice");
    expect((await executeTool(gw, "notes-get_weather", { city: "Rome" }, { "x-gw-vk": alice.value })).status).toBe(401);
    const page = watched.page;
    await page.getByRole("button", { name: "Refresh" }).click();
    const flows = page.getByRole("table", { name: "Flows waiting for values" });
    const row = flows.getByRole("row").filter({ hasText: "notes" });
    await row.waitFor();
    await row.getByText(alice.id).waitFor();
    await row.getByText("x-user-token").waitFor();
    expect(watched.problems()).toEqual([]);
  });
});
