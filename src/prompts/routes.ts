import { Elysia, t } from "elysia";
import { noteAudit, principalOf } from "../access";
import { notFound } from "../http/errors";
import { INT32_MAX } from "../http/integers";
import { Deleted, replies } from "../http/replies";
import { LabelMove, LabelName, LabelReply, PromptCreateInput, PromptDetail, PromptList, PromptRender, PromptRunFields, PromptVersionInput, PromptVersionReply } from "./schemas";
import type { PromptStore } from "./store";
import { authorOf, labelView, promptView, versionView } from "./views";
import { chatBody, renderPrompt } from "./run";
import { type FileFormat, PromptSyncReply, readPromptFile, syncPromptFile, writePromptFile } from "./files";

const NameParams = t.Object({ name: t.String() });
const ExportQuery = t.Object({ format: t.Optional(t.Union([t.Literal("yaml"), t.Literal("json")], { description: "yaml (the default) or json" })) });
const SyncQuery = t.Object({ dry_run: t.Optional(t.Boolean({ description: "Answer what the file would change, and write nothing." })) });
const FILE_BODY = t.String({ description: "A prompt file, YAML or JSON: `prompts`, a list of prompts as POST /api/prompts takes them (name, folder, description, messages, variables, model, parameters, commit_message)." });
const MEDIA_TYPES: Record<FileFormat, string> = { yaml: "application/yaml", json: "application/json" };
const VersionParams = t.Object({ name: t.String(), version: t.Integer({ minimum: 1, maximum: INT32_MAX }) });
const LabelParams = t.Object({ name: t.String(), label: LabelName });

/** Import (`deleteMissing` false) or sync (true) of a prompt file, audited unless a dry run. */
const syncing =
  (store: PromptStore, deleteMissing: boolean) =>
  async ({ body, query, request }: { body: string; query: { dry_run?: boolean }; request: Request }) => {
    const reply = await syncPromptFile(store, readPromptFile(body), { author: authorOf(principalOf(request)), deleteMissing, dryRun: query.dry_run ?? false });
    if (!reply.dry_run) noteAudit(request, { targetId: deleteMissing ? "sync" : "import", after: reply });
    return reply;
  };

/** A prompt file route: the body read as text (YAML or JSON), `dry_run`, and what changed as the reply. */
const syncRoute = (summary: string, description: string) => ({ parse: "text" as const, body: FILE_BODY, query: SyncQuery, ...replies({ 200: PromptSyncReply }, { summary, description }) });

/** /api/prompts: prompts, their immutable versions, and the labels that point at them. */
export const promptRoutes = (store: PromptStore) =>
  new Elysia({ name: "prompts", prefix: "/api/prompts" })
    .get("/", async () => ({ prompts: (await store.list()).map(promptView) }), replies({ 200: PromptList }, { summary: "List prompts", description: "Every prompt, by folder and name, with its newest version and labels." }))
    .post(
      "/",
      async ({ body, request, set }) => {
        const record = await store.create(body, authorOf(principalOf(request)));
        const detail = { prompt: promptView(record), versions: record.versions.map((row) => versionView(row, record.labels)) };
        noteAudit(request, { targetId: body.name, after: detail });
        set.status = 201;
        return detail;
      },
      { body: PromptCreateInput, ...replies({ 201: PromptDetail }, { summary: "Create a prompt", description: "Its first version is version 1; variables the messages use but do not declare are required strings." }) },
    )
    .get(
      "/export",
      async ({ query, set }) => {
        const format = query.format ?? "yaml";
        set.headers["content-type"] = `${MEDIA_TYPES[format]}; charset=utf-8`;
        set.headers["content-disposition"] = `attachment; filename="prompts.${format}"`;
        return writePromptFile(await store.list(), format);
      },
      {
        query: ExportQuery,
        detail: {
          summary: "Export prompts as a file",
          description: "Every prompt's newest version as YAML or JSON, for keeping in git; POST /api/prompts/import or PUT /api/prompts reads it back.",
          responses: { 200: { description: "The file, `prompts.yaml` or `prompts.json`.", content: { "application/yaml": { schema: { type: "string" } }, "application/json": { schema: { type: "string" } } } } },
        },
      },
    )
    .post("/import", syncing(store, false), syncRoute("Import prompts from a file", "Creates the prompts the file adds and a version of each it changes; unchanged prompts get no version, others are left as they are. No label moves."))
    .put("/", syncing(store, true), syncRoute("Sync prompts to a file", "The file is the whole set: as import, and prompts it does not name are deleted. Syncing the same file again changes nothing."))
    .get(
      "/:name",
      async ({ params }) => {
        const record = await store.get(params.name);
        return { prompt: promptView(record), versions: record.versions.map((row) => versionView(row, record.labels)) };
      },
      { params: NameParams, ...replies({ 200: PromptDetail }, { summary: "Get a prompt", description: "The prompt with every version, oldest first, and its labels." }) },
    )
    .delete(
      "/:name",
      async ({ params, request }) => {
        await store.remove(params.name);
        noteAudit(request, { targetId: params.name });
        return { message: "Prompt deleted successfully" };
      },
      { params: NameParams, ...replies({ 200: Deleted }, { summary: "Delete a prompt", description: "With every version and label." }) },
    )
    .post(
      "/:name/versions",
      async ({ params, body, request, set }) => {
        const row = await store.addVersion(params.name, body, authorOf(principalOf(request)));
        const version = versionView(row, []);
        noteAudit(request, { targetId: `${params.name}@${row.version}`, after: version });
        set.status = 201;
        return { version };
      },
      { params: NameParams, body: PromptVersionInput, ...replies({ 201: PromptVersionReply }, { summary: "Add a prompt version", description: "The newest version plus one; versions are never changed. No label moves." }) },
    )
    .get(
      "/:name/versions/:version",
      async ({ params }) => {
        const record = await store.get(params.name);
        const row = record.versions.find((version) => version.version === params.version);
        if (!row) throw notFound(`prompt '${params.name}' has no version ${params.version}`, "caller_prompt_version_not_found");
        return { version: versionView(row, record.labels) };
      },
      { params: VersionParams, ...replies({ 200: PromptVersionReply }, { summary: "Get a prompt version" }) },
    )
    .post(
      "/:name/render",
      async ({ params, body }) => {
        const prompt = await renderPrompt(store, params.name, body);
        return { body: chatBody(prompt), metadata: prompt.metadata };
      },
      {
        params: NameParams,
        body: PromptRunFields,
        ...replies({ 200: PromptRender }, { summary: "Render a prompt", description: "The /v1/chat/completions body a run with these fields would send, and the log metadata it would carry; nothing is sent to a provider." }),
      },
    )
    .put(
      "/:name/labels/:label",
      async ({ params, body, request }) => {
        const before = (await store.get(params.name)).labels.find((row) => row.label === params.label);
        const moved = labelView(await store.moveLabel(params.name, params.label, body.version, authorOf(principalOf(request))));
        noteAudit(request, { targetId: `${params.name}:${params.label}`, before: before && labelView(before), after: moved });
        return moved;
      },
      { params: LabelParams, body: LabelMove, ...replies({ 200: LabelReply }, { summary: "Point a label at a version", description: "Creates the label or moves it, in one write: every node answers the new version from then on." }) },
    )
    .delete(
      "/:name/labels/:label",
      async ({ params, request }) => {
        await store.removeLabel(params.name, params.label);
        noteAudit(request, { targetId: `${params.name}:${params.label}` });
        return { message: "Label removed successfully" };
      },
      { params: LabelParams, ...replies({ 200: Deleted }, { summary: "Remove a label" }) },
    );
