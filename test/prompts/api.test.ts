import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { bearer, call, createApiKey, json } from "../access/access-client";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import YAML from "yaml";

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway({ edition: "enterprise" });
});
afterAll(() => gw.close());

interface Version {
  version: number;
  messages: Array<Record<string, unknown>>;
  variables: Array<{ name: string; type?: string; required?: boolean; default?: unknown }>;
  labels: string[];
  author: string;
  commit_message: string;
}
interface Detail {
  prompt: { name: string; folder: string; latest_version: number; labels: Record<string, number> };
  versions: Version[];
}

const admin = (path: string, method = "GET", body?: unknown) => gw.admin(path, { method, json: body });
const SUPPORT = {
  name: "support-reply",
  folder: "support/email",
  messages: [
    { role: "system", content: "You answer for {{company}}." },
    { role: "user", content: "{{question}}" },
  ],
  variables: [{ name: "company", type: "string", default: "Acme" }],
  model: "openai/gpt-4o-mini",
  parameters: { temperature: 0.2 },
  commit_message: "first draft",
};

describe("prompts and their versions", () => {
  test("a created prompt is version 1 with the variables its messages use, authored by the caller", async () => {
    const created = await json<Detail>(await admin("/api/prompts", "POST", SUPPORT), 201);
    expect(created.prompt).toMatchObject({ name: "support-reply", folder: "support/email", latest_version: 1, labels: {} });
    expect(created.versions).toHaveLength(1);
    expect(created.versions[0]).toMatchObject({ version: 1, commit_message: "first draft", author: "setup", labels: [] });
    expect(created.versions[0]!.variables).toEqual([
      { name: "company", type: "string", default: "Acme" },
      { name: "question", type: "string", required: true },
    ]);
    const listed = await json<{ prompts: Array<{ name: string }> }>(await admin("/api/prompts"));
    expect(listed.prompts.map((prompt) => prompt.name)).toContain("support-reply");
    await expectGatewayError(await admin("/api/prompts", "POST", SUPPORT), 409, { param: "name" });
  });

  test("versions are immutable: adding one makes the next number and leaves the earlier as it was", async () => {
    const before = await json<{ version: Version }>(await admin("/api/prompts/support-reply/versions/1"));
    const added = await json<{ version: Version }>(
      await admin("/api/prompts/support-reply/versions", "POST", { messages: [{ role: "user", content: "Briefly: {{question}}" }], commit_message: "shorter" }),
      201,
    );
    expect(added.version).toMatchObject({ version: 2, commit_message: "shorter" });
    expect(await json<{ version: Version }>(await admin("/api/prompts/support-reply/versions/1"))).toEqual(before);
    // No route writes over a version.
    for (const method of ["PUT", "DELETE"]) expect((await admin("/api/prompts/support-reply/versions/1", method, { messages: [{ role: "user", content: "x" }] })).status).toBe(404);
    expect((await json<Detail>(await admin("/api/prompts/support-reply"))).prompt.latest_version).toBe(2);
    await expectGatewayError(await admin("/api/prompts/support-reply/versions/9"), 404);
    await expectGatewayError(await admin(`/api/prompts/support-reply/versions/${2 ** 53 + 2}`), 400, { param: "version" });
  });

  test("a label points at one version, moves in one write, and is removed", async () => {
    const moved = await json<{ label: string; version: number; moved_by: string }>(await admin("/api/prompts/support-reply/labels/production", "PUT", { version: 1 }));
    expect(moved).toMatchObject({ label: "production", version: 1, moved_by: "setup" });
    await json(await admin("/api/prompts/support-reply/labels/production", "PUT", { version: 2 }));
    const detail = await json<Detail>(await admin("/api/prompts/support-reply"));
    expect(detail.prompt.labels).toEqual({ production: 2 });
    expect(detail.versions.map((version) => version.labels)).toEqual([[], ["production"]]);
    await json(await admin("/api/prompts/support-reply/labels/production", "DELETE"));
    expect((await json<Detail>(await admin("/api/prompts/support-reply"))).prompt.labels).toEqual({});
    await expectGatewayError(await admin("/api/prompts/support-reply/labels/production", "DELETE"), 404);
  });

  test("a prompt is deleted with its versions and labels", async () => {
    await json(await admin("/api/prompts", "POST", { name: "short-lived", messages: [{ role: "user", content: "hi" }] }), 201);
    await json(await admin("/api/prompts/short-lived/labels/staging", "PUT", { version: 1 }));
    await json(await admin("/api/prompts/short-lived", "DELETE"));
    await expectGatewayError(await admin("/api/prompts/short-lived"), 404);
    // The name is free again, from version 1 with no label.
    const again = await json<Detail>(await admin("/api/prompts", "POST", { name: "short-lived", messages: [{ role: "user", content: "hi" }] }), 201);
    expect(again.prompt).toMatchObject({ latest_version: 1, labels: {} });
  });
});

describe("bad input is a 400 naming the field", () => {
  test.each([
    ["an unknown version for a label", "/api/prompts/support-reply/labels/staging", "PUT", { version: 42 }, "version"],
    ["a version past 2^53", "/api/prompts/support-reply/labels/staging", "PUT", { version: 2 ** 53 + 2 }, "version"],
    ["moving `latest`", "/api/prompts/support-reply/labels/latest", "PUT", { version: 1 }, "label"],
    ["a template that does not parse", "/api/prompts/support-reply/versions", "POST", { messages: [{ role: "user", content: "{{#open}} never closed" }] }, "messages[0].content"],
    ["an include of a prompt that does not exist", "/api/prompts/support-reply/versions", "POST", { messages: [{ include: { name: "nowhere" } }] }, "messages[0].include.name"],
    ["an include of itself", "/api/prompts/support-reply/versions", "POST", { messages: [{ include: { name: "support-reply" } }] }, "messages[0].include.name"],
    ["a name with capitals", "/api/prompts", "POST", { name: "Bad Name", messages: [{ role: "user", content: "x" }] }, "name"],
  ])("%s", async (_, path, method, body, param) => {
    await expectGatewayError(await admin(path, method, body), 400, { param });
  });
});

describe("who may do what", () => {
  test("an editor adds versions but cannot move production; a deployer can", async () => {
    const editor = await createApiKey(gw, "prompt editor", ["Prompts:View", "Prompts:Edit"]);
    const deployer = await createApiKey(gw, "prompt deployer", ["Prompts:View", "Prompts:Deploy"]);
    const added = await call(gw, "/api/prompts/support-reply/versions", { method: "POST", headers: bearer(editor), json: { messages: [{ role: "user", content: "v3 {{question}}" }] } });
    const { version } = await json<{ version: Version }>(added, 201);
    expect(version.author).toStartWith("api_key:");

    const refused = await expectGatewayError(
      await call(gw, "/api/prompts/support-reply/labels/production", { method: "PUT", headers: bearer(editor), json: { version: version.version } }),
      403,
      { errorType: "policy_permission_denied" },
    );
    expect(refused.error.message).toContain("Prompts:Deploy");
    await expectGatewayError(await call(gw, "/api/prompts/support-reply/versions", { method: "POST", headers: bearer(deployer), json: { messages: [{ role: "user", content: "x" }] } }), 403);

    await json(await call(gw, "/api/prompts/support-reply/labels/production", { method: "PUT", headers: bearer(deployer), json: { version: version.version } }));
    expect((await json<Detail>(await admin("/api/prompts/support-reply"))).prompt.labels.production).toBe(version.version);
  });

  test("each version written and each label moved is in the audit log with who did it", async () => {
    type Entry = { action: string; outcome: string; initiator: { type: string }; target: { id: string }; summary: { after?: { version: number } } };
    const { audit_logs } = await json<{ audit_logs: Entry[] }>(await admin("/api/governance/audit-logs?limit=100"));
    const succeeded = (action: string, target: string) => audit_logs.find((entry) => entry.action === action && entry.target.id === target && entry.outcome === "success");
    expect(succeeded("Prompts:Edit", "support-reply@3")).toMatchObject({ initiator: { type: "api_key" }, summary: { after: { version: 3 } } });
    expect(succeeded("Prompts:Deploy", "support-reply:production")).toMatchObject({ initiator: { type: "api_key" }, summary: { after: { version: 3 } } });
  });
});

describe("prompts as files", () => {
  interface SyncReply {
    created: string[];
    versioned: Array<{ name: string; version: number }>;
    updated: string[];
    unchanged: string[];
    deleted: string[];
    dry_run: boolean;
  }
  const send = (method: string, path: string, text: string) => gw.admin(path, { method, headers: { "content-type": "application/yaml" }, body: text });
  const exported = async (format = "yaml") => {
    const response = await admin(`/api/prompts/export?format=${format}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-disposition")).toContain(`prompts.${format}`);
    return response.text();
  };

  test("an exported file imported again changes nothing; an edited one adds a version only where it changed", async () => {
    await json(await admin("/api/prompts", "POST", { name: "file-greeting", folder: "files", messages: [{ role: "user", content: "Hello {{who}}" }], model: "openai/gpt-4o-mini" }), 201);
    const file = await exported();
    expect(YAML.parse(file).prompts.find((prompt: { name: string }) => prompt.name === "file-greeting")).toMatchObject({ folder: "files", model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "Hello {{who}}" }] });
    const again = await json<SyncReply>(await send("POST", "/api/prompts/import", file));
    expect(again).toMatchObject({ created: [], versioned: [], updated: [], deleted: [] });
    expect(again.unchanged).toContain("file-greeting");

    const edited = file.replace("Hello {{who}}", "Good morning {{who}}");
    expect(await json<SyncReply>(await send("POST", "/api/prompts/import?dry_run=true", edited))).toMatchObject({ versioned: [{ name: "file-greeting", version: 2 }], dry_run: true });
    expect((await json<Detail>(await admin("/api/prompts/file-greeting"))).prompt.latest_version).toBe(1);
    expect(await json<SyncReply>(await send("POST", "/api/prompts/import", edited))).toMatchObject({ versioned: [{ name: "file-greeting", version: 2 }], dry_run: false });
    const detail = await json<Detail>(await admin("/api/prompts/file-greeting"));
    expect(detail.versions.map((version) => [version.version, version.messages[0]!.content, version.commit_message])).toEqual([
      [1, "Hello {{who}}", ""],
      [2, "Good morning {{who}}", "imported"],
    ]);
    // JSON reads as well, and the export in JSON is the same set.
    expect(JSON.parse(await exported("json"))).toEqual(YAML.parse(await exported()));
  });

  test("PUT of a whole set creates, versions and deletes what differs, and answers what it changed", async () => {
    const set = {
      prompts: [
        { name: "file-greeting", folder: "files", description: "moved", messages: [{ role: "user", content: "Good morning {{who}}" }], model: "openai/gpt-4o-mini" },
        { name: "file-wrapper", messages: [{ include: { name: "file-new" } }, { role: "user", content: "and more" }] },
        { name: "file-new", messages: [{ role: "system", content: "New {{thing}}" }], commit_message: "from CI" },
      ],
    };
    const before = (await json<{ prompts: Array<{ name: string }> }>(await admin("/api/prompts"))).prompts.map((prompt) => prompt.name);
    const reply = await json<SyncReply>(await send("PUT", "/api/prompts", YAML.stringify(set)));
    expect(reply).toMatchObject({ created: ["file-new", "file-wrapper"], versioned: [], updated: ["file-greeting"], unchanged: [] });
    expect(reply.deleted.toSorted()).toEqual(before.filter((name) => name !== "file-greeting").toSorted());
    const listed = (await json<{ prompts: Array<{ name: string; folder: string }> }>(await admin("/api/prompts"))).prompts;
    expect(listed.map((prompt) => prompt.name).toSorted()).toEqual(["file-greeting", "file-new", "file-wrapper"]);
    expect((await json<Detail>(await admin("/api/prompts/file-new"))).versions[0]!.commit_message).toBe("from CI");
    // Idempotent: the same set again writes nothing.
    expect(await json<SyncReply>(await send("PUT", "/api/prompts", YAML.stringify(set)))).toMatchObject({ created: [], versioned: [], updated: [], deleted: [], unchanged: ["file-greeting", "file-new", "file-wrapper"] });
  });

  test.each([
    ["text that is neither YAML nor JSON", "prompts: [unclosed", "file"],
    ["no prompts list", "name: x", "prompts"],
    ["a prompt without messages", "prompts:\n  - name: lonely\n", "prompts[0].messages"],
    ["a name twice", YAML.stringify({ prompts: [{ name: "twin", messages: [{ role: "user", content: "a" }] }, { name: "twin", messages: [{ role: "user", content: "b" }] }] }), "prompts[1].name"],
    ["a template that does not parse", YAML.stringify({ prompts: [{ name: "ok", messages: [{ role: "user", content: "a" }] }, { name: "broken", messages: [{ role: "user", content: "{{#open}}" }] }] }), "prompts[1].messages[0].content"],
    ["an include of a prompt nowhere", YAML.stringify({ prompts: [{ name: "ok", messages: [{ include: { name: "nowhere" } }] }] }), "prompts[0].messages[0].include.name"],
  ])("a file with %s is a 400 naming the field, and nothing is written", async (_, text, param) => {
    const before = await exported();
    await expectGatewayError(await send("PUT", "/api/prompts", text), 400, { param });
    expect(await exported()).toBe(before);
  });

  test("importing needs Prompts:Edit; exporting Prompts:View", async () => {
    const viewer = await createApiKey(gw, "prompt viewer", ["Prompts:View"]);
    expect((await call(gw, "/api/prompts/export", { headers: bearer(viewer) })).status).toBe(200);
    const file = await exported();
    const asViewer = (method: string, path: string) => fetch(`${gw.url}${path}`, { method, headers: { ...bearer(viewer), "content-type": "application/yaml" }, body: file });
    await expectGatewayError(await asViewer("POST", "/api/prompts/import"), 403);
    await expectGatewayError(await asViewer("PUT", "/api/prompts"), 403);
  });
});
