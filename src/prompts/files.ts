import { type Static, Type as t } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import YAML from "yaml";
import type { StoredPromptTemplate } from "../db/schema";
import { badRequest, GatewayError } from "../http/errors";
import { PromptCreateInput } from "./schemas";
import type { PromptRecord, PromptStore } from "./store";
import { templateOf } from "./store";

/** A set of prompts as a file keeps them: each prompt's newest version, no history, no labels. */
export const PromptFile = t.Object({ prompts: t.Array(PromptCreateInput) }, { additionalProperties: false });
export type PromptFile = Static<typeof PromptFile>;

export const PromptSyncReply = t.Object({
  created: t.Array(t.String(), { description: "Prompts the file added, at version 1." }),
  versioned: t.Array(t.Object({ name: t.String(), version: t.Integer() }), { description: "Prompts whose messages, variables, model or parameters changed: the version added." }),
  updated: t.Array(t.String(), { description: "Prompts whose folder or description changed, and nothing else." }),
  unchanged: t.Array(t.String()),
  deleted: t.Array(t.String(), { description: "On PUT only: prompts the file does not name." }),
  dry_run: t.Boolean({ description: "True when nothing was written: what the file would change." }),
});
export type PromptSyncReply = Static<typeof PromptSyncReply>;

export type FileFormat = "yaml" | "json";

/** A file's text (YAML, or JSON, which YAML reads too) as a prompt set; a mistake is a 400 naming the field, as `prompts[2].messages`. */
export function readPromptFile(text: string): PromptFile {
  let parsed: unknown;
  try {
    parsed = YAML.parse(text, { maxAliasCount: 100 });
  } catch (error) {
    throw badRequest(`the file is neither YAML nor JSON: ${(error as Error).message}`, "file");
  }
  const error = Value.Errors(PromptFile, parsed).First();
  if (error) {
    const param = error.path.split("/").filter(Boolean).reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), "") || "file";
    throw badRequest(`${param}: ${error.message}`, param);
  }
  const names = new Set<string>();
  for (const [index, prompt] of (parsed as PromptFile).prompts.entries()) {
    if (names.has(prompt.name)) throw badRequest(`prompt '${prompt.name}' is in the file twice`, `prompts[${index}].name`);
    names.add(prompt.name);
  }
  return parsed as PromptFile;
}

/** Each prompt's newest version as a file entry; reading the file back changes nothing. */
export function writePromptFile(records: readonly PromptRecord[], format: FileFormat): string {
  const prompts = records.map(({ prompt, versions }) => {
    const { messages, variables, model, parameters } = versions.at(-1)!.template;
    return { name: prompt.name, folder: prompt.folder, description: prompt.description, ...(model ? { model } : {}), parameters, variables, messages };
  });
  return format === "json" ? `${JSON.stringify({ prompts }, null, 2)}\n` : YAML.stringify({ prompts });
}

/** Templates compared as stored: key order and absent-versus-undefined do not count. */
const sameTemplate = (stored: StoredPromptTemplate, written: StoredPromptTemplate) => Bun.deepEquals(JSON.parse(JSON.stringify(stored)), JSON.parse(JSON.stringify(written)));

interface SyncOptions {
  author: string;
  /** PUT: the file is the whole set, and prompts it does not name are deleted. */
  deleteMissing: boolean;
  dryRun: boolean;
}

/**
 * Brings the stored prompts to the file: a new prompt is created, a changed one gets a version,
 * an unchanged one is left alone, so syncing one file twice writes nothing the second time.
 * Prompts that include others come after them, so a file may hold both.
 */
export async function syncPromptFile(store: PromptStore, file: PromptFile, { author, deleteMissing, dryRun }: SyncOptions): Promise<PromptSyncReply> {
  const stored = new Map((await store.list()).map((record) => [record.prompt.name, record]));
  checkEntries(file, new Set(stored.keys()));
  const reply: PromptSyncReply = { created: [], versioned: [], updated: [], unchanged: [], deleted: [], dry_run: dryRun };
  for (const entry of includedFirst(file.prompts)) {
    const current = stored.get(entry.name);
    const commit = { ...entry, commit_message: entry.commit_message ?? "imported" };
    if (!current) {
      if (!dryRun) await store.create(commit, author);
      reply.created.push(entry.name);
      continue;
    }
    const latest = current.versions.at(-1);
    const detailsChanged = (entry.folder ?? "") !== current.prompt.folder || (entry.description ?? "") !== current.prompt.description;
    if (detailsChanged && !dryRun) await store.setDetails(entry.name, entry.folder ?? "", entry.description ?? "");
    if (latest && sameTemplate(latest.template, templateOf(entry))) {
      reply[detailsChanged ? "updated" : "unchanged"].push(entry.name);
      continue;
    }
    const version = dryRun ? (latest?.version ?? 0) + 1 : (await store.addVersion(entry.name, commit, author)).version;
    reply.versioned.push({ name: entry.name, version });
  }
  if (deleteMissing) {
    const named = new Set(file.prompts.map((entry) => entry.name));
    for (const name of stored.keys()) {
      if (named.has(name)) continue;
      if (!dryRun) await store.remove(name);
      reply.deleted.push(name);
    }
  }
  return reply;
}

/** Every entry's templates and includes checked before anything is written: a mistake names its place, as `prompts[1].messages[0].content`. */
function checkEntries(file: PromptFile, stored: ReadonlySet<string>): void {
  const known = new Set([...stored, ...file.prompts.map((entry) => entry.name)]);
  file.prompts.forEach((entry, index) => {
    try {
      templateOf(entry);
    } catch (error) {
      if (error instanceof GatewayError) throw badRequest(error.message, `prompts[${index}].${error.param}`);
      throw error;
    }
    entry.messages.forEach((message, at) => {
      if ("include" in message && !known.has(message.include.name)) throw badRequest(`included prompt '${message.include.name}' is neither in the file nor stored`, `prompts[${index}].messages[${at}].include.name`);
    });
  });
}

/** The file's prompts with each one that another includes before it (the order otherwise kept). */
function includedFirst(prompts: PromptFile["prompts"]): PromptFile["prompts"] {
  const byName = new Map(prompts.map((entry) => [entry.name, entry]));
  const ordered: PromptFile["prompts"] = [];
  const placed = new Set<string>();
  const place = (entry: PromptFile["prompts"][number], depth: number) => {
    if (placed.has(entry.name) || depth > prompts.length) return;
    for (const message of entry.messages) {
      const included = "include" in message ? byName.get(message.include.name) : undefined;
      if (included && included !== entry) place(included, depth + 1);
    }
    if (placed.has(entry.name)) return;
    placed.add(entry.name);
    ordered.push(entry);
  };
  for (const entry of prompts) place(entry, 0);
  return ordered;
}
