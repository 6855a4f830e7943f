import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { submittedJob } from "../support/async-jobs";
import { type Browser, DASHBOARD_AUTH, launchBrowser, signIn, untilReadAgain, type WatchedPage } from "../support/browser";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { TestClock } from "../support/test-clock";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";

const DEFAULT_FIRST_RETRY_MS = 30_000;
/** How often the page reads its jobs and deliveries again (REFRESH_MS of its sections). */
const PAGE_REFRESH_MS = 3_000;

let upstream: MockOpenAI;
let receiver: WebhookReceiver;
let gw: TestGateway;
let browser: Browser;
let watched: WatchedPage;
const clock = new TestClock();

beforeAll(async () => {
  upstream = startMockOpenAI();
  receiver = startWebhookReceiver();
  gw = await startGateway({ auth: DASHBOARD_AUTH, providers: { openai: { keys: [{ id: "k1", value: "sk-upstream" }], network_config: { base_url: upstream.baseUrl } } } }, { runtime: { actorClock: clock } });
  browser = await launchBrowser();
  await browser.context.clock.install();
  watched = await browser.open(`${gw.url}/ui/webhooks`);
  await signIn(watched.page);
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
  upstream?.stop();
  receiver?.stop();
});

const page = () => watched.page;

describe("webhooks page", () => {
  test("an async job submitted through /v1 is listed while it runs, then with its result", async () => {
    const jobs = page().getByRole("region", { name: "Async jobs" });
    await jobs.getByRole("heading", { name: "No async job yet" }).waitFor();
    await jobs.getByText("POST /v1/async/chat/completions").waitFor();

    const arrived = Promise.withResolvers<void>();
    const release = Promise.withResolvers<void>();
    upstream.onRequest = async () => {
      upstream.onRequest = undefined;
      arrived.resolve();
      await release.promise;
    };
    const job = await submittedJob(gw, "chat/completions", { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "list this job" }] });
    await arrived.promise;
    const row = jobs.getByRole("row").filter({ hasText: job.id });
    await untilReadAgain(page(), row.getByText("processing", { exact: true }), PAGE_REFRESH_MS);
    expect(await row.getByRole("cell").nth(1).innerText()).toContain("chat.completion");

    release.resolve();
    await untilReadAgain(page(), row.getByText("completed", { exact: true }), PAGE_REFRESH_MS);
    await row.getByText("echo: list this job", { exact: true }).waitFor();
    await row.getByText("HTTP 200").waitFor();
    await row.getByText("Full result").click();
    expect(JSON.parse(await row.locator("pre").innerText())).toMatchObject({ choices: [{ message: { content: "echo: list this job" } }] });

    await jobs.getByLabel("Status").selectOption("failed");
    await jobs.getByRole("heading", { name: "No failed job" }).waitFor();
    await jobs.getByLabel("Status").selectOption("completed");
    await row.waitFor();
  });

  test("an endpoint's delivery fails once, is retried and delivered, then redelivered under the same webhook-id", async () => {
    await page().getByRole("heading", { name: "No webhook endpoint yet" }).waitFor();
    await page().getByRole("button", { name: "Add endpoint" }).click();
    const form = page().getByRole("dialog", { name: "Add a webhook endpoint" });
    await form.getByLabel("Name").fill("jobs");
    await form.getByLabel("URL").fill(`${receiver.url}/hook`);
    await form.getByLabel("Allow private networks and plain http").check();
    await form.getByRole("button", { name: "Add endpoint" }).click();
    const shown = page().getByRole("dialog", { name: "Signing secret of jobs" });
    const secret = await shown.getByLabel("Signing secret").innerText();
    expect(secret).toStartWith("whsec_");
    // The receiver verifies every delivery with the secret the page showed.
    receiver.secrets.set("/hook", secret);
    await shown.getByRole("button", { name: "Done" }).click();

    receiver.replies.push(500);
    const job = await submittedJob(gw, "chat/completions", { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "notify me" }] }, { "x-gw-async-webhook": "jobs" });
    await page().getByRole("button", { name: "Deliveries of jobs" }).click();
    const history = page().getByRole("dialog", { name: "Deliveries to jobs" }).getByRole("table", { name: "Deliveries" });
    await untilReadAgain(page(), history.getByRole("cell", { name: "waiting_retry", exact: true }), PAGE_REFRESH_MS);
    await history.getByRole("cell", { name: `async_job.completed job ${job.id}` }).waitFor();
    await history.getByRole("cell", { name: "500", exact: true }).waitFor();

    await clock.timerSet(DEFAULT_FIRST_RETRY_MS);
    clock.increment(DEFAULT_FIRST_RETRY_MS);
    await untilReadAgain(page(), history.getByRole("cell", { name: "delivered", exact: true }).first(), PAGE_REFRESH_MS);
    expect(await history.getByRole("row").nth(1).getByRole("cell").nth(3).innerText()).toBe("2");

    await history.getByRole("button", { name: "Redeliver" }).click();
    await page().getByText("Delivery queued again").waitFor();
    const received = await receiver.arrivals(3);
    expect(received.map((delivery) => delivery.headers.get("webhook-id"))).toEqual(Array(3).fill(received[0]!.headers.get("webhook-id")));
    expect(receiver.rejected).toEqual([]);
    await untilReadAgain(page(), history.getByRole("cell", { name: /redelivery/ }), PAGE_REFRESH_MS);
  });

  test("no page error and no request failed that the user did not cause", () => {
    expect(watched.problems()).toEqual([]);
  });
});
