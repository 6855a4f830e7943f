import { afterAll, beforeAll, expect, test } from "bun:test";
import { Glob } from "bun";
import Ajv2020 from "ajv/dist/2020";
import { join } from "node:path";
import { startGateway, type TestGateway } from "../support/gateway";
import { REPO_ROOT } from "../support/main-process";

interface Example {
  page: string;
  path: string;
  body: unknown;
}

/** Every `curl … localhost:8080/<path> … -d '<json>'` in docs/: a POST the page tells readers to send. */
async function curlExamples(): Promise<Example[]> {
  const examples: Example[] = [];
  for await (const page of new Glob("docs/*.md").scan({ cwd: REPO_ROOT })) {
    const text = await Bun.file(join(REPO_ROOT, page)).text();
    for (const [, path, json] of text.matchAll(/curl -s localhost:8080(\/\S+)[^']*?(?:'[^']*'[^']*?)*?-d '(\{[\s\S]*?\})'/g)) {
      examples.push({ page, path: path!, body: JSON.parse(json!) });
    }
  }
  return examples;
}

let gateway: TestGateway;
let document: { paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: object }> } }>>; components: object };
beforeAll(async () => {
  // The providers the examples name, as a reader who followed the quickstart has them (no call leaves the machine).
  const unreachable = { network_config: { base_url: "http://127.0.0.1:9/v1" } };
  gateway = await startGateway({ providers: { openai: { keys: [{ value: "sk-docs" }], ...unreachable }, anthropic: { keys: [{ value: "sk-ant-docs" }], ...unreachable } } });
  document = (await (await fetch(`${gateway.url}/api/openapi.json`)).json()) as typeof document;
});
afterAll(() => gateway.close());

test("every request body the docs tell readers to send is one the route's documented schema accepts", async () => {
  const examples = await curlExamples();
  expect(examples.map(({ path }) => path).toSorted()).toEqual(
    expect.arrayContaining(["/api/agents", "/api/governance/routing-rules", "/api/governance/virtual-keys", "/api/mcp/client", "/api/providers", "/v1/async/chat/completions"]),
  );
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  const refused: string[] = [];
  for (const { page, path, body } of examples) {
    const schema = document.paths[path]?.post?.requestBody?.content["application/json"]?.schema;
    if (!schema) continue; // The inference mounts take what the provider takes: no body schema to hold an example to.
    const validate = ajv.compile({ ...schema, components: document.components });
    if (!validate(body)) refused.push(`${page} ${path}: ${ajv.errorsText(validate.errors)}`);
  }
  expect(refused).toEqual([]);
});

test("the governance examples are created as written (a routing rule's CEL is checked only when it is written)", async () => {
  const governance = (await curlExamples()).filter(({ path }) => path.startsWith("/api/governance/"));
  expect(governance.length).toBeGreaterThanOrEqual(2);
  for (const { page, path, body } of governance) {
    const response = await gateway.admin(path, { method: "POST", json: body });
    expect({ page, path, created: response.ok, body: response.ok ? "" : await response.text() }).toEqual({ page, path, created: true, body: "" });
  }
});
