import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { join } from "node:path";
import { REFERENCE_PATH, renderConfigurationReference } from "../../src/config/reference";
import { GatewayConfig } from "../../src/config/schema";
import { EnvironmentVariables } from "../../src/config/startup-options";
import { REPO_ROOT } from "../support/main-process";

/** Every environment variable the gateway's own code reads, by name. */
async function variablesReadBySource(): Promise<Set<string>> {
  const names = new Set<string>();
  for (const folder of ["src", "actors"]) {
    for await (const file of new Glob("**/*.ts").scan(join(REPO_ROOT, folder))) {
      const source = await Bun.file(join(REPO_ROOT, folder, file)).text();
      for (const [, name] of source.matchAll(/\benv\.([A-Z][A-Z0-9_]*[A-Z0-9])\b/g)) names.add(name!);
    }
  }
  // `env.NAME` in comments and messages is the config.json convention, not a variable.
  for (const placeholder of ["NAME", "VAR_NAME"]) names.delete(placeholder);
  return names;
}

describe("the configuration reference", () => {
  test(`${REFERENCE_PATH} is what \`npm run config-reference\` writes from the schemas today`, async () => {
    const written = await Bun.file(join(REPO_ROOT, REFERENCE_PATH)).text();
    if (written !== renderConfigurationReference()) throw new Error(`${REFERENCE_PATH} is stale: run \`npm run config-reference\` and commit it`);
  });

  test("lists every config.json section and every environment variable the code reads", async () => {
    const reference = renderConfigurationReference();
    for (const section of Object.keys(GatewayConfig.properties)) expect(reference).toContain(`### \`${section}\``);
    const documented = new Set(Object.keys(EnvironmentVariables.properties));
    expect([...(await variablesReadBySource())].filter((name) => !documented.has(name))).toEqual([]);
  });
});
