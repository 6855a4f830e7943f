import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { submittedJob } from "../support/async-jobs";
import { type Browser, DASHBOARD_AUTH, launchBrowser, signIn, type WatchedPage } from "../support/browser";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { createEndpoint, historyUntil } from "../support/webhook-endpoints";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";

let upstream: MockOpenAI;
let receiver: WebhookReceiver;
let gw: TestGateway;
let browser: Browser;
let watched: WatchedPage;

beforeAll(async () => {
  upstream = startMockOpenAI();
  receiver = startWebhookReceiver();
  gw = await startGateway({ auth: DASHBOARD_AUTH, providers: { openai: { keys: [{ id: "k1", value: "sk-upstream" }], network_config: { base_url: upstream.baseUrl } } } });
  browser = await launchBrowser();
  watched = await browser.open(`${gw.url}/ui/lifecycles`);
  await signIn(watched.page);
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
  upstream?.stop();
  receiver?.stop();
});

const page = () => watched.page;

describe("Lifecycles page", () => {
  test("a delivery waiting to be retried is found from its state on the statechart, its path shown and its state highlighted", async () => {
    const endpoint = await createEndpoint(gw, receiver, "/hook");
    receiver.replies.push(500);
    await submittedJob(gw, "chat/completions", { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "notify me" }] }, { "x-gw-async-webhook": endpoint.name });
    const [waiting] = (await historyUntil(gw, "", (list) => list.deliveries[0]?.status === "waiting_retry")).deliveries;

    await page().getByLabel("Kind").selectOption("webhook-delivery");
    const chart = page().getByRole("img", { name: "Statechart of webhook-delivery" });
    await chart.getByRole("button", { name: "State waiting_retry: 1 instances" }).click();
    await page().getByRole("region", { name: "Instances in waiting_retry" }).getByRole("button", { name: waiting!.id }).click();
    const timeline = page().getByRole("region", { name: `Instance ${waiting!.id}` }).getByRole("list", { name: "Transitions" });
    await timeline.getByRole("listitem").first().waitFor();
    const path = (await timeline.getByRole("listitem").allInnerTexts()).map((line) => line.split(" ")[0]);
    expect(path.at(-1)).toBe("waiting_retry");
    expect(path).toContain("attempting");
    await chart.getByRole("button", { name: "State waiting_retry: 1 instances" }).and(page().locator('[aria-current="true"]')).waitFor();
  });

  test("no page error and no request failed that the user did not cause", () => {
    expect(watched.problems()).toEqual([]);
  });
});
