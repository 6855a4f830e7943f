import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { BUILT_IN_PROVIDERS } from "../../src/inference/providers/catalog";
import { PROVIDER_NOTES } from "../../src/inference/providers/notes";
import { PROVIDERS_DOC, README, renderProviderList, renderProviderTable, withGenerated } from "../../src/inference/providers/reference";
import { REPO_ROOT } from "../support/main-process";

const written = (path: string) => Bun.file(join(REPO_ROOT, path)).text();

describe("the provider reference is the registry's", () => {
  test(`${PROVIDERS_DOC} and ${README} list what \`npm run providers-reference\` writes from the registry today`, async () => {
    for (const [path, generated] of [[PROVIDERS_DOC, renderProviderTable()], [README, renderProviderList()]] as const) {
      const document = await written(path);
      if (withGenerated(document, generated) !== document) throw new Error(`${path}'s provider list is stale: run \`npm run providers-reference\` and commit it`);
    }
  });

  test("every built-in provider has its notes, and no notes name a provider the registry lacks", () => {
    expect(Object.keys(PROVIDER_NOTES).sort()).toEqual(Object.keys(BUILT_IN_PROVIDERS).sort());
  });
});
