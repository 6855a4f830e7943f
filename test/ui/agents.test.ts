import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { gatewayClient, taskIdOfEvent, userMessage } from "../support/a2a-client";
import { type SdkAgent, startSdkAgent } from "../support/a2a-sdk-agent";
import { eventually } from "../support/eventually";
import { type Browser, DASHBOARD_AUTH, launchBrowser, signIn, type WatchedPage } from "../support/browser";
import { startGateway, type TestGateway } from "../support/gateway";

let agent: SdkAgent;
let gw: TestGateway;
let browser: Browser;
let watched: WatchedPage;

beforeAll(async () => {
  agent = await startSdkAgent();
  gw = await startGateway({ auth: DASHBOARD_AUTH });
  browser = await launchBrowser();
  watched = await browser.open(`${gw.url}/ui/agents`);
  await signIn(watched.page);
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
  await agent?.stop();
});

const page = () => watched.page;

describe("agents page", () => {
  test("an agent added by its URL shows its card, and a task sent through the gateway shows with its history", async () => {
    await page().getByRole("heading", { name: "No agent yet" }).waitFor();
    await page().getByRole("button", { name: "Add agent" }).click();
    const form = page().getByRole("dialog", { name: "Add an agent" });
    await form.getByLabel("Name").fill("echo");
    await form.getByLabel("Agent URL").fill(agent.baseUrl);
    await form.getByRole("button", { name: "Add agent" }).click();
    const card = page().getByRole("region", { name: "Agent echo" });
    await card.getByText("Echo agent").waitFor();
    await card.getByText("A test agent built with the A2A SDK").waitFor();

    const client = await gatewayClient(gw, "echo", { transport: "JSONRPC" });
    const events = [];
    for await (const event of client.sendMessageStream(userMessage("hello agents page"))) events.push(event);
    const taskId = taskIdOfEvent(events[0]!)!;

    const tasks = page().getByRole("table", { name: "Tasks" });
    // The task's record is written as it moves: refresh until it shows finished.
    await eventually(
      async () => {
        await page().getByRole("button", { name: "Refresh tasks" }).click();
        await page().getByRole("region", { name: "Recent tasks" }).locator("[aria-busy], table, p").first().waitFor();
        return tasks.getByText("completed", { exact: true }).count();
      },
      (found) => found === 1,
    );
    await tasks.getByRole("button", { name: `History of task ${taskId}` }).click();
    const transitions = await tasks.getByRole("list", { name: `Transitions of task ${taskId}` }).getByRole("listitem").allInnerTexts();
    expect(transitions.map((line) => line.split(" ")[0])).toEqual(["submitted", "working", "completed"]);
  });

  test("no page error and no request failed that the user did not cause", () => {
    expect(watched.problems()).toEqual([]);
  });
});
