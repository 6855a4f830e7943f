import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import YAML from "yaml";
import { type Browser, DASHBOARD_AUTH, launchBrowser, signIn, type WatchedPage } from "../support/browser";
import { eventually } from "../support/eventually";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

/** The Prompts page as a team uses it: a new version written, compared with the last, promoted and rolled back, run as a virtual key; a file imported. */
let upstream: MockOpenAI;
let gw: TestGateway;
let browser: Browser;
let watched: WatchedPage;
let keyId: string;
const folder = mkdtempSync(join(tmpdir(), "prompt-files-"));

type Json = Record<string, any>;
const detail = async (name: string) => (await (await gw.admin(`/api/prompts/${name}`)).json()) as Json;

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({ auth: DASHBOARD_AUTH, providers: { openai: { keys: [{ id: "o1", value: "sk-upstream", models: ["gpt-4o-mini"] }], network_config: { base_url: upstream.baseUrl } } } });
  keyId = ((await (await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name: "web-app" } })).json()) as Json).virtual_key.id;
  const created = await gw.admin("/api/prompts", {
    method: "POST",
    json: { name: "greeting", folder: "onboarding", messages: [{ role: "system", content: "You greet people." }, { role: "user", content: "Say hi to {{who}}" }], model: "openai/gpt-4o-mini", commit_message: "first" },
  });
  expect(created.status).toBe(201);
  browser = await launchBrowser();
  watched = await browser.open(`${gw.url}/`);
  await signIn(watched.page);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await gw?.close();
  upstream?.stop();
  rmSync(folder, { recursive: true, force: true });
});

const page = () => watched.page;
const dialog = () => page().getByRole("dialog");

describe("Prompts page", () => {
  test("edit: a new version's variables show as they are typed, and it is saved as version 2", async () => {
    await page().getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Prompts" }).click();
    await page().getByRole("table", { name: "Prompts in onboarding" }).getByRole("link", { name: "greeting" }).click();
    await page().getByRole("heading", { name: "Prompt greeting" }).waitFor();
    await page().getByRole("button", { name: "New version" }).click();
    const variables = dialog().getByRole("region", { name: "Variables" });
    await variables.getByText("who").waitFor();
    await dialog().getByLabel("Text of message 2").fill("Say hello to {{who}} in {{language}}");
    await variables.getByText("language").waitFor();
    expect(await variables.getByRole("listitem").allInnerTexts()).toEqual(["who", "language"]);
    await dialog().getByLabel("Commit message").fill("ask for a language");
    await dialog().getByRole("button", { name: "Save version" }).click();
    await page().getByRole("table", { name: "Versions" }).getByRole("row", { name: /ask for a language/ }).waitFor();
    const stored = await detail("greeting");
    expect(stored.versions.map((version: Json) => [version.version, version.messages[1].content])).toEqual([
      [1, "Say hi to {{who}}"],
      [2, "Say hello to {{who}} in {{language}}"],
    ]);
  });

  test("diff: the two versions compared line by line, what was removed and what was added", async () => {
    const diff = page().getByRole("region", { name: "Compare versions" });
    await diff.getByLabel("From version", { exact: true }).selectOption({ label: "Version 1" });
    await diff.getByLabel("To version", { exact: true }).selectOption({ label: "Version 2" });
    const text = await diff.getByLabel("Diff from version 1 to version 2").innerText();
    const changed = text.split("\n").filter((line) => /^[+-] /.test(line)).map((line) => line.replace(/^([+-]) +/, "$1 "));
    expect(changed).toContain('- "content": "Say hi to {{who}}"');
    expect(changed).toContain('+ "content": "Say hello to {{who}} in {{language}}"');
    expect(changed).toContain('+ "name": "language",');
    // The removed line comes before the one that replaces it, and what both have is not marked.
    expect(changed.indexOf('- "content": "Say hi to {{who}}"')).toBeLessThan(changed.indexOf('+ "content": "Say hello to {{who}} in {{language}}"'));
    expect(changed.some((line) => line.includes("You greet people."))).toBe(false);
  });

  test("promote and roll back: production moves to version 2, then back to version 1", async () => {
    const labels = page().getByRole("form", { name: "Move a label" });
    await labels.getByLabel("Point it at").selectOption({ label: "Version 2" });
    await labels.getByRole("button", { name: "Promote" }).click();
    await labels.getByRole("list", { name: "Labels" }).getByText("production → version 2").waitFor();
    expect((await detail("greeting")).prompt.labels).toEqual({ production: 2 });

    await labels.getByLabel("Point it at").selectOption({ label: "Version 1" });
    await labels.getByRole("button", { name: "Roll back" }).click();
    await labels.getByRole("list", { name: "Labels" }).getByText("production → version 1").waitFor();
    expect((await detail("greeting")).prompt.labels).toEqual({ production: 1 });
  });

  test("run: sample variables rendered into the request shown, the answer streamed through the chosen key and logged with its version", async () => {
    await page().getByRole("button", { name: "Run", exact: true }).click();
    await dialog().getByLabel("Run as virtual key").selectOption({ label: "web-app" });
    await dialog().getByLabel("Version").selectOption({ label: "Version 2" });
    await dialog().getByLabel("Variable who").fill("Ada");
    await dialog().getByLabel("Variable language").fill("French");
    await dialog().getByRole("button", { name: "View as code" }).click();
    expect(await dialog().getByRole("region", { name: "The run API as code" }).innerText()).toContain(`${gw.url}/v1/prompts/greeting/chat/completions`);
    await dialog().getByRole("button", { name: "Run", exact: true }).click();
    await dialog().getByRole("region", { name: "Rendered request" }).getByText('"content": "Say hello to Ada in French"').waitFor();
    const answer = dialog().getByRole("region", { name: "Answer" });
    await answer.getByText("echo: Say hello to Ada in French").waitFor();
    expect(upstream.requests.at(-1)!.body).toMatchObject({ stream: true, messages: [{ role: "system", content: "You greet people." }, { role: "user", content: "Say hello to Ada in French" }] });
    const [row] = await eventually(
      async () => ((await (await gw.admin(`/api/logs?virtual_key_ids=${keyId}`)).json()) as Json).logs as Json[],
      (logs) => logs.length === 1 && logs[0]!.status !== "processing",
    );
    expect(row!.metadata).toMatchObject({ prompt: "greeting", prompt_version: "2" });
    await page().keyboard.press("Escape");
  });

  test("the runs by version, and their logs a click away", async () => {
    await page().reload();
    const usage = page().getByRole("table", { name: "Runs by version" });
    await usage.getByRole("row", { name: /Version 2/ }).waitFor();
    await usage.getByRole("link", { name: "Version 2" }).click();
    await page().getByRole("heading", { name: "Logs" }).waitFor();
    expect(new URL(page().url()).searchParams.get("metadata_prompt_version")).toBe("2");
  });

  test("a file imported from the list creates its prompts; Export offers the set as a file", async () => {
    await page().goto(`${gw.url}/ui/prompts`);
    const file = join(folder, "prompts.yaml");
    writeFileSync(file, YAML.stringify({ prompts: [{ name: "farewell", folder: "onboarding", messages: [{ role: "user", content: "Say bye to {{who}}" }] }] }));
    await page().getByLabel("Import prompts from a file").setInputFiles(file);
    await page().getByRole("status").getByText("Imported: 1 created").waitFor();
    await page().getByRole("table", { name: "Prompts in onboarding" }).getByRole("link", { name: "farewell" }).waitFor();
    const download = page().waitForEvent("download");
    await page().getByRole("link", { name: "Export" }).click();
    expect((await download).suggestedFilename()).toBe("prompts.yaml");
  });

  test("no page error and no request failed that the user did not cause", () => {
    expect(watched.problems()).toEqual([]);
  });
});
