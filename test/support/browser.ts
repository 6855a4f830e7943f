import { type Browser as PlaywrightBrowser, type BrowserContext, chromium, type Locator, type Page } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

interface AllowedFailure {
  method: string;
  path: string;
  status: number;
}

/**
 * A page that records every JavaScript error and every failed request; `problems()` lists those
 * the test did not announce with `expectFailure` (a wrong token typed on purpose, a refused save).
 */
export interface WatchedPage {
  page: Page;
  expectFailure(method: string, path: string, status: number): void;
  problems(): string[];
}

export interface Browser {
  context: BrowserContext;
  open(url: string): Promise<WatchedPage>;
  close(): Promise<void>;
}

function watch(page: Page): WatchedPage {
  const allowed: AllowedFailure[] = [];
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    // A failed request shows up as a console error too; it is judged below, by its response.
    if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) problems.push(`console error: ${message.text()}`);
  });
  page.on("response", (response) => {
    if (response.status() < 400) return;
    const { pathname } = new URL(response.url());
    const method = response.request().method();
    const index = allowed.findIndex((entry) => entry.method === method && entry.path === pathname && entry.status === response.status());
    if (index >= 0) allowed.splice(index, 1);
    else problems.push(`${method} ${pathname} answered ${response.status()}`);
  });
  page.on("requestfailed", (request) => {
    // Leaving or reloading a page aborts what it was still loading: the user's doing.
    if (request.failure()?.errorText === "net::ERR_ABORTED") return;
    problems.push(`${request.method()} ${request.url()} failed: ${request.failure()?.errorText}`);
  });
  return {
    page,
    expectFailure: (method, path, status) => allowed.push({ method, path, status }),
    problems: () => [...problems],
  };
}

let running: Promise<PlaywrightBrowser> | undefined;

/**
 * Headless Chromium (Debian's package), started once for every test file of the run: a file's
 * context has its own cookies, storage and cache, as a fresh profile would. It ends with the run
 * (its pipe to this process closes), or is started again if it crashed.
 */
async function sharedChromium(): Promise<PlaywrightBrowser> {
  const browser = await running?.catch(() => undefined);
  if (browser?.isConnected()) return browser;
  running = chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  return running;
}

/** A browser context of its own, one per test file, in the shared Chromium. */
export async function launchBrowser(options: { colorScheme?: "light" | "dark"; viewport?: { width: number; height: number } } = {}): Promise<Browser> {
  const context = await (await sharedChromium()).newContext({
    viewport: options.viewport ?? { width: 1280, height: 900 },
    colorScheme: options.colorScheme ?? "light",
    permissions: ["clipboard-read", "clipboard-write"],
  });
  return {
    context,
    async open(url) {
      const page = await context.newPage();
      const watched = watch(page);
      await page.goto(url);
      return watched;
    },
    close: () => context.close(),
  };
}

/**
 * Waits until `target` shows on a page that reads what it shows again every `everyMs`, on a timer
 * of its own: the page's clock (installed with `clock.install()` before the page loaded) is moved
 * on to each next reading instead of being waited out.
 */
export async function untilReadAgain(page: Page, target: Locator, everyMs: number, timeoutMs = 10_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      return await target.waitFor({ timeout: 100 });
    } catch (error) {
      if (performance.now() > deadline) throw error;
    }
    await page.clock.fastForward(everyMs);
  }
}

/** The dashboard's admin account in tests that start signed in: config.json `auth`. */
export const DASHBOARD_ADMIN = { username: "admin", password: "dashboard-password" };
export const DASHBOARD_AUTH = { admin_username: DASHBOARD_ADMIN.username, admin_password: DASHBOARD_ADMIN.password };

/** Fills the sign-in form as a user does and waits for the signed-in app. */
export async function signIn(page: Page, account = DASHBOARD_ADMIN): Promise<void> {
  await page.getByLabel("Username").fill(account.username);
  await page.getByLabel("Password").fill(account.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("navigation", { name: "Main" }).waitFor();
}
