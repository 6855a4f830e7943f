import { afterAll, beforeAll, expect, test } from "bun:test";
import { seriousViolations } from "../support/axe";
import { type Browser, DASHBOARD_AUTH, launchBrowser, signIn, type WatchedPage } from "../support/browser";
import { eventually } from "../support/eventually";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, type RecordedRequest, startMockOpenAI } from "../support/mock-openai";

/** A conversation's requests, reached from one request's detail, shown as a thread with each turn's cache hits and cost. */
let upstream: MockOpenAI;
let gw: TestGateway;
let browser: Browser;
let watched: WatchedPage;

/** Input tokens each message costs in the mock; every message but the newest was seen before and is read from the cache. */
const TOKENS_PER_MESSAGE = 100;
const QUESTIONS = ["Plan three days in Lisbon", "Add a day trip to Sintra", "Which day has the most walking?"];

function cachedReply(request: RecordedRequest) {
  const messages = request.body.messages as Array<{ content: string }>;
  const usage = { prompt_tokens: messages.length * TOKENS_PER_MESSAGE, completion_tokens: 10, total_tokens: messages.length * TOKENS_PER_MESSAGE + 10, prompt_tokens_details: { cached_tokens: (messages.length - 1) * TOKENS_PER_MESSAGE } };
  const content = `answer to: ${messages.at(-1)!.content}`;
  return { id: `chatcmpl-${upstream.requests.length}`, object: "chat.completion", created: 1, model: request.body.model, choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }], usage };
}

beforeAll(async () => {
  upstream = startMockOpenAI();
  upstream.onRequest = (request) => void upstream.faults.unshift({ kind: "body", body: JSON.stringify(cachedReply(request)), contentType: "application/json" });
  gw = await startGateway({
    auth: DASHBOARD_AUTH,
    providers: { openai: { keys: [{ id: "k1", value: "sk-upstream-1" }], network_config: { base_url: upstream.baseUrl, health: { conversation_affinity: true } } } },
  });
  const messages: Array<{ role: string; content: string }> = [];
  for (const question of QUESTIONS) {
    messages.push({ role: "user", content: question });
    const response = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-gw-session-id": "lisbon-trip" },
      body: JSON.stringify({ model: "openai/gpt-4o-mini", messages }),
    });
    const reply = (await response.json()) as { choices: Array<{ message: { content: string } }> };
    messages.push({ role: "assistant", content: reply.choices[0]!.message.content });
  }
  await eventually(
    async () => ((await (await gw.admin("/api/logs?conversation_ids=lisbon-trip")).json()) as { logs: Array<{ id: string; status: string }> }).logs,
    (logs) => logs.length === 3 && logs.every((log) => log.status === "success"),
  );
  browser = await launchBrowser();
  watched = await browser.open(`${gw.url}/ui/logs`);
  await signIn(watched.page);
}, 30_000);
afterAll(async () => {
  await browser?.close();
  await gw?.close();
  upstream?.stop();
});

test("from a request's detail to its conversation: each turn's question, answer, cache hit tokens and cost, then back to a turn's detail", async () => {
  const page = watched.page;
  const [newest] = ((await (await gw.admin("/api/logs?conversation_ids=lisbon-trip&limit=1")).json()) as { logs: Array<{ id: string }> }).logs;
  await page.getByRole("table", { name: "Request logs" }).getByRole("button", { name: `open request ${newest!.id}` }).click();
  const detail = page.getByRole("dialog", { name: "Request detail" });
  await detail.getByRole("link", { name: "Show the conversation as a thread" }).click();
  await page.getByRole("heading", { name: "Conversation" }).waitFor();
  const turns = page.getByRole("list", { name: "Turns" }).getByRole("listitem");
  await turns.nth(2).waitFor();
  expect(await turns.count()).toBe(3);
  for (const [index, question] of QUESTIONS.entries()) {
    const turn = page.getByRole("listitem", { name: `Turn ${index + 1}` });
    expect(await turn.getByLabel("Asked").innerText()).toBe(question);
    expect(await turn.getByLabel("Answered").innerText()).toBe(`answer to: ${question}`);
  }
  // Turn n sends 2n - 1 messages, all but the newest read from the cache.
  const cacheHits = (turn: number) => page.getByRole("listitem", { name: `Turn ${turn}` }).getByRole("definition").nth(1).innerText();
  expect([await cacheHits(1), await cacheHits(2), await cacheHits(3)]).toEqual(["0 (0.0 %)", "200 (66.7 %)", "400 (80.0 %)"]);
  expect(await page.getByRole("region", { name: "Read from the prompt cache" }).getByRole("paragraph").innerText()).toBe("600 (66.7 %)");
  // Each turn's cost is priced from its usage, cached input at the cache price.
  const costs = await page.getByRole("list", { name: "Turns" }).getByRole("definition").filter({ hasText: "$" }).allInnerTexts();
  expect(costs).toHaveLength(3);
  await page.getByRole("button", { name: "Request detail of turn 2" }).click();
  const turnDetail = page.getByRole("dialog", { name: "Request detail" });
  await turnDetail.getByText("Plan three days in Lisbon").first().waitFor();
  expect(await seriousViolations(page)).toEqual([]);
  await turnDetail.getByRole("button", { name: "Close" }).click();
  // And back: the logs filtered to the conversation's requests.
  await page.getByRole("link", { name: "Its requests in the logs" }).click();
  const rows = page.getByRole("table", { name: "Request logs" }).getByRole("button", { name: /: open request / });
  await rows.nth(2).waitFor();
  expect(await rows.count()).toBe(3);
  expect(await page.getByLabel("Conversation ids").inputValue()).toBe("lisbon-trip");
  expect(watched.problems()).toEqual([]);
}, 30_000);

test("a conversation the log has no request of is a 404 naming it", async () => {
  const response = await gw.admin("/api/logs/conversations/never-seen");
  expect(response.status).toBe(404);
  expect(((await response.json()) as { error: { message: string } }).error.message).toContain("never-seen");
});
