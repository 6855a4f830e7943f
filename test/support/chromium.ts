import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";

export interface HeadlessBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** The system's Chromium, headless, with a fresh profile and nothing calling home. */
export async function launchChromium(): Promise<HeadlessBrowser> {
  const profile = mkdtempSync(join(tmpdir(), "gateway-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
