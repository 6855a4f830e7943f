import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { existsSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { REPO_ROOT } from "../support/main-process";

/** Pages other areas write, linked from the README before they land. */
const WRITTEN_ELSEWHERE = new Set(["docs/security.md", "docs/limits-and-durability.md", "docs/lifecycles.md", "docs/dashboard.md"]);

async function files(pattern: string): Promise<string[]> {
  return Array.fromAsync(new Glob(pattern).scan({ cwd: REPO_ROOT }));
}

const userDocuments = async () => ["README.md", ...(await files("docs/**/*.md"))];
const projectText = async () => [...(await userDocuments()), ...(await files("src/**/*.{md,ts}"))];

/** The prose of a Markdown page: what a reader sees as text and links, code left out. */
const prose = (markdown: string) => markdown.replace(/^ *```[\s\S]*?^ *```$/gm, "").replace(/`[^`\n]*`/g, "");

describe("the README and docs/ speak of the project only", () => {
  test("every link is to a file of the repository that exists", async () => {
    const broken: string[] = [];
    for (const page of await userDocuments()) {
      const text = prose(await Bun.file(join(REPO_ROOT, page)).text());
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const path = target!.replace(/#.*$/, "");
        if (!path) continue;
        const resolved = relative(REPO_ROOT, join(REPO_ROOT, dirname(page), path));
        if (/^[a-z]+:/i.test(path) || resolved.startsWith("..") || (!existsSync(join(REPO_ROOT, resolved)) && !WRITTEN_ELSEWHERE.has(resolved))) broken.push(`${page}: ${target}`);
      }
      for (const [address] of text.matchAll(/https?:\/\/[^\s)>\]]+/g)) broken.push(`${page}: ${address}`);
    }
    expect(broken).toEqual([]);
  });

  test("no page or source file names a past run or a file outside the repository", async () => {
    const found: string[] = [];
    for (const file of await projectText()) {
      const text = await Bun.file(join(REPO_ROOT, file)).text();
      for (const [match] of text.matchAll(/\bsessions? \d+|\bruns? #?\d{2,}\b(?![.,]\d)(?!\s*(?:[KMG]B|ms|µs|s\b|%|rows|requests|times))|\.\.\/shared\//gi)) found.push(`${file}: ${match}`);
    }
    expect(found).toEqual([]);
  });

  test("every command that runs Bun runs it as `npx bun`: Bun is not on the reader's PATH", async () => {
    const found: string[] = [];
    for (const page of [...(await userDocuments()), "bench/README.md", "src/README.md"]) {
      const text = await Bun.file(join(REPO_ROOT, page)).text();
      for (const [match] of text.matchAll(/(?<!npx |node_modules\/\.bin\/)\bbun (?:run|test|install|x|src\/|bench\/|test\/)\S*/g)) found.push(`${page}: ${match}`);
    }
    expect(found).toEqual([]);
  });

  test("the README stays a newcomer's document: at most ~400 lines", async () => {
    const lines = (await Bun.file(join(REPO_ROOT, "README.md")).text()).split("\n").length;
    expect(lines).toBeLessThanOrEqual(400);
  });
});
