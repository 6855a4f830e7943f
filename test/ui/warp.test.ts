import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { seriousViolations } from "../support/axe";
import { type Browser, DASHBOARD_AUTH, launchBrowser, signIn, type WatchedPage } from "../support/browser";
import { startGateway, type TestGateway } from "../support/gateway";
import { startWarpModel, type WarpModel } from "../support/warp-model";

let model: WarpModel;
let gw: TestGateway;
let browser: Browser;
let watched: WatchedPage;

beforeAll(async () => {
  model = startWarpModel(["refund", "outage"]);
  gw = await startGateway({ auth: DASHBOARD_AUTH, providers: { openai: { keys: [{ id: "openai-main", value: "sk-warp-secret", models: ["*"] }], network_config: { base_url: model.baseUrl } } } });
  browser = await launchBrowser();
  watched = await browser.open(`${gw.url}/ui/warp`);
  await signIn(watched.page);
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
  model?.stop();
});

const page = () => watched.page;

describe("Warp", () => {
  test("configured on its settings page, it answers from any page with its tool call shown folded, and the conversation is kept, continued and deleted", async () => {
    const settings = page().getByRole("form", { name: "Warp settings" });
    await settings.getByText("not configured").waitFor();
    await settings.getByLabel("Enabled").check();
    await settings.getByLabel("Provider", { exact: true }).selectOption("openai");
    await settings.getByLabel("Model", { exact: true }).fill("gpt-4o-mini");
    await settings.getByLabel("Embedding provider").selectOption("openai");
    await settings.getByLabel("Embedding model").fill("text-embedding-3-small");
    await settings.getByLabel("Embedding dimension").fill("3");
    await settings.getByRole("button", { name: "Save settings" }).click();
    await settings.getByText("ready", { exact: true }).waitFor();

    await page().getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Logs" }).click();
    model.script = [{ tools: [{ name: "count_logs", arguments: {} }] }, { text: "No request failed in the last 24 hours." }];
    await page().getByRole("button", { name: "Ask Warp" }).click();
    const chat = page().getByRole("dialog", { name: "Warp" });
    await chat.getByLabel("Ask Warp").fill("How many requests failed today?");
    await chat.getByRole("button", { name: "Send" }).click();
    const log = chat.getByRole("log", { name: "Warp conversation" });
    await log.getByLabel("Warp").getByText("No request failed in the last 24 hours.").waitFor();
    const toolCall = log.getByText("Tool call: count_logs");
    await toolCall.waitFor();
    expect(await log.getByRole("heading", { name: "Result" }).isVisible()).toBe(false);
    await toolCall.click();
    await log.getByRole("heading", { name: "Result" }).waitFor();
    // The model was handed the tool's result, which the panel shows.
    const toolMessage = model.chats[1]!.messages.find((message) => message.role === "tool")!;
    expect(JSON.parse(await log.getByRole("group").locator("pre").last().innerText())).toEqual(JSON.parse(String(toolMessage.content)));

    const conversations = chat.getByRole("navigation", { name: "Conversations" });
    await conversations.getByRole("button", { name: "How many requests failed today?", exact: true }).waitFor();
    model.script = [{ text: "Still none." }];
    await chat.getByLabel("Ask Warp").fill("And now?");
    await chat.getByRole("button", { name: "Send" }).click();
    await log.getByText("Still none.").waitFor();
    // The follow-up continued the same conversation: the model saw the first question.
    expect(JSON.stringify(model.chats.at(-1)!.messages)).toContain("How many requests failed today?");

    await conversations.getByRole("button", { name: "New conversation" }).click();
    await conversations.getByRole("button", { name: "How many requests failed today?", exact: true }).click();
    await log.getByText("Still none.").waitFor();
    await conversations.getByRole("button", { name: "Delete conversation How many requests failed today?" }).click();
    await page().getByText("Conversation deleted").waitFor();
    expect(await conversations.getByRole("listitem").count()).toBe(0);
  });

  test("a long conversation title wraps in its column beside the answer, and its delete button shows an icon", async () => {
    const question = "Which virtual keys spent the most on gpt-4o-mini during the last seven days, and what share of it failed?";
    model.script = [{ text: "web-app spent the most." }];
    const chat = page().getByRole("dialog", { name: "Warp" });
    await chat.getByRole("navigation", { name: "Conversations" }).getByRole("button", { name: "New conversation" }).click();
    await chat.getByLabel("Ask Warp").fill(question);
    await chat.getByRole("button", { name: "Send" }).click();
    const log = chat.getByRole("log", { name: "Warp conversation" });
    await log.getByText("web-app spent the most.").waitFor();
    const title = chat.getByRole("navigation", { name: "Conversations" }).getByRole("button", { name: /^Which virtual keys spent the most/ });
    const [titleBox, logBox] = [await title.boundingBox(), await log.boundingBox()];
    expect(titleBox!.x + titleBox!.width).toBeLessThanOrEqual(logBox!.x);
    const remove = chat.getByRole("button", { name: /^Delete conversation Which virtual keys/ });
    const icon = await remove.locator("svg").boundingBox();
    expect(icon?.width).toBeGreaterThan(8);
    expect(await seriousViolations(page())).toEqual([]);
  });

  test("no page error and no request failed that the user did not cause", () => {
    expect(watched.problems()).toEqual([]);
  });
});
