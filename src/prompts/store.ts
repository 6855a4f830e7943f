import { and, desc, eq, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { type PromptLabelRow, type PromptRow, type PromptVersionRow, promptLabels, prompts, promptVersions, type StoredPromptTemplate } from "../db/schema";
import { badRequest, conflict, notFound } from "../http/errors";
import { declaredVariables } from "./render";
import type { PromptCreateInput, PromptVersionInput } from "./schemas";

/** How a run names its version: a label, a number, or the newest. */
export interface VersionChoice {
  label?: string;
  version?: number;
}

export const LATEST = "latest";
/** How deep includes may nest; deeper (or a prompt including itself) is refused. */
const MOST_INCLUDE_DEPTH = 4;

export interface PromptRecord {
  prompt: PromptRow;
  versions: PromptVersionRow[];
  labels: PromptLabelRow[];
}

const isInclude = (message: Record<string, unknown>): message is { include: { name: string } & VersionChoice } => typeof message.include === "object" && message.include !== null;

/** A version as stored: the declared variables and those the messages use, parameters never absent. */
export function templateOf(input: PromptVersionInput): StoredPromptTemplate {
  const messages = input.messages as Array<Record<string, unknown>>;
  const ownMessages = messages.filter((message) => !isInclude(message));
  return { messages, variables: declaredVariables(ownMessages, input.variables), model: input.model, parameters: input.parameters ?? {} };
}

/**
 * Prompts in libSQL, read on every use so that every node sees a version or a label move as soon
 * as it is written. Versions are never changed; a label is one row, moved by one upsert.
 */
export class PromptStore {
  constructor(private readonly db: Database) {}

  async list(): Promise<PromptRecord[]> {
    const [rows, versions, labels] = await Promise.all([this.db.select().from(prompts).orderBy(prompts.folder, prompts.name), this.db.select().from(promptVersions), this.db.select().from(promptLabels)]);
    return rows.map((prompt) => ({ prompt, versions: versions.filter((row) => row.prompt === prompt.name), labels: labels.filter((row) => row.prompt === prompt.name) }));
  }

  async get(name: string): Promise<PromptRecord> {
    const [prompt] = await this.db.select().from(prompts).where(eq(prompts.name, name));
    if (!prompt) throw notFound(`prompt '${name}' not found`, "caller_prompt_not_found");
    const [versions, labels] = await Promise.all([
      this.db.select().from(promptVersions).where(eq(promptVersions.prompt, name)).orderBy(promptVersions.version),
      this.db.select().from(promptLabels).where(eq(promptLabels.prompt, name)),
    ]);
    return { prompt, versions, labels };
  }

  /** The prompt and its version 1 in one batch: a second create of the name at once writes neither and is a 409. */
  async create(input: PromptCreateInput, author: string): Promise<PromptRecord> {
    const now = new Date();
    const template = templateOf(input);
    await this.checkIncludes(input.name, template);
    const [created] = await this.db.batch([
      this.db.insert(prompts).values({ name: input.name, folder: input.folder ?? "", description: input.description ?? "", createdAt: now, updatedAt: now }).onConflictDoNothing().returning(),
      this.db.insert(promptVersions).values({ prompt: input.name, version: 1, template, commitMessage: input.commit_message ?? "", author, createdAt: now }).onConflictDoNothing(),
    ]);
    if (created.length === 0) throw conflict(`prompt '${input.name}' already exists`, "name");
    return this.get(input.name);
  }

  /**
   * The next version number, taken by insert: two nodes adding at once get different numbers or one 409.
   * The row is written only while the prompt exists, so a delete at the same moment leaves no version behind.
   */
  async addVersion(name: string, input: PromptVersionInput, author: string): Promise<PromptVersionRow> {
    const template = templateOf(input);
    await this.checkIncludes(name, template);
    const version = (await this.latestVersion(name)) + 1;
    const createdAt = new Date();
    const values = {
      prompt: prompts.name,
      version: sql`${version}`.as("version"),
      template: sql`${JSON.stringify(template)}`.as("template"),
      commitMessage: sql`${input.commit_message ?? ""}`.as("commit_message"),
      author: sql`${author}`.as("author"),
      createdAt: sql`${createdAt.getTime()}`.as("created_at"),
    };
    const [inserted, touched] = await this.db.batch([
      this.db.insert(promptVersions).select(this.db.select(values).from(prompts).where(eq(prompts.name, name))).onConflictDoNothing().returning(),
      this.db.update(prompts).set({ updatedAt: createdAt }).where(eq(prompts.name, name)).returning({ name: prompts.name }),
    ]);
    if (touched.length === 0) throw notFound(`prompt '${name}' not found`, "caller_prompt_not_found");
    if (inserted.length === 0) throw conflict(`version ${version} of prompt '${name}' was just written by someone else; read the prompt again and retry`);
    return inserted[0]!;
  }

  /** A prompt's folder and description, the only things of it that change in place. */
  async setDetails(name: string, folder: string, description: string): Promise<void> {
    await this.db.update(prompts).set({ folder, description, updatedAt: new Date() }).where(eq(prompts.name, name));
  }

  /** Creates or moves the label in one statement that writes only while the version exists. */
  async moveLabel(name: string, label: string, version: number, movedBy: string): Promise<PromptLabelRow> {
    if (label === LATEST) throw badRequest("`latest` always points at the newest version and cannot be moved", "label");
    await this.version(name, { version });
    const row = { prompt: name, label, version, movedBy, movedAt: new Date() };
    const values = { prompt: promptVersions.prompt, label: sql`${label}`.as("label"), version: promptVersions.version, movedBy: sql`${movedBy}`.as("moved_by"), movedAt: sql`${row.movedAt.getTime()}`.as("moved_at") };
    const moved = await this.db
      .insert(promptLabels)
      .select(this.db.select(values).from(promptVersions).where(and(eq(promptVersions.prompt, name), eq(promptVersions.version, version))))
      .onConflictDoUpdate({ target: [promptLabels.prompt, promptLabels.label], set: { version, movedBy, movedAt: row.movedAt } })
      .returning();
    if (moved.length === 0) throw notFound(`prompt '${name}' not found`, "caller_prompt_not_found");
    return row;
  }

  async removeLabel(name: string, label: string): Promise<void> {
    const removed = await this.db.delete(promptLabels).where(and(eq(promptLabels.prompt, name), eq(promptLabels.label, label))).returning();
    if (removed.length === 0) throw notFound(`prompt '${name}' has no label '${label}'`, "caller_prompt_label_not_found");
  }

  /** The prompt, its versions and labels in one batch: nothing of it is left when any of it is gone. */
  async remove(name: string): Promise<void> {
    const [, , removed] = await this.db.batch([
      this.db.delete(promptLabels).where(eq(promptLabels.prompt, name)),
      this.db.delete(promptVersions).where(eq(promptVersions.prompt, name)),
      this.db.delete(prompts).where(eq(prompts.name, name)).returning({ name: prompts.name }),
    ]);
    if (removed.length === 0) throw notFound(`prompt '${name}' not found`, "caller_prompt_not_found");
  }

  /** The version a run asks for; an unknown prompt, label or version is a 400 naming the field. */
  async version(name: string, choice: VersionChoice, param = ""): Promise<PromptVersionRow> {
    const number = choice.version ?? (choice.label && choice.label !== LATEST ? await this.labelled(name, choice.label, param) : await this.latestVersion(name, param));
    const [row] = await this.db.select().from(promptVersions).where(and(eq(promptVersions.prompt, name), eq(promptVersions.version, number)));
    if (!row) throw badRequest(`prompt '${name}' has no version ${number}`, `${param}version`);
    return row;
  }

  /** The version a run asks for; an unknown prompt is a 400 naming `name` (the path's), as an unknown label or version names its field. */
  async runVersion(name: string, choice: VersionChoice): Promise<PromptVersionRow> {
    const [exists] = await this.db.select({ name: prompts.name }).from(prompts).where(eq(prompts.name, name));
    if (!exists) throw badRequest(`prompt '${name}' does not exist`, "name");
    return this.version(name, choice);
  }

  /** The version's messages with every include replaced by the included prompt's messages. */
  async expandedMessages(version: PromptVersionRow, depth = 0): Promise<Array<Record<string, unknown>>> {
    const expanded: Array<Record<string, unknown>> = [];
    for (const message of version.template.messages) {
      if (!isInclude(message)) {
        expanded.push(message);
        continue;
      }
      if (depth >= MOST_INCLUDE_DEPTH) throw badRequest(`prompt includes nest deeper than ${MOST_INCLUDE_DEPTH} (or include themselves)`, "messages");
      const { name, ...choice } = message.include;
      const included = await this.version(name, choice.version || choice.label ? choice : { label: "production" }).catch(() => this.version(name, {}, "include."));
      expanded.push(...(await this.expandedMessages(included, depth + 1)));
    }
    return expanded;
  }

  private async checkIncludes(name: string, template: StoredPromptTemplate): Promise<void> {
    for (const [index, message] of template.messages.entries()) {
      if (!isInclude(message)) continue;
      if (message.include.name === name) throw badRequest(`a prompt cannot include itself`, `messages[${index}].include.name`);
      const [exists] = await this.db.select({ name: prompts.name }).from(prompts).where(eq(prompts.name, message.include.name));
      if (!exists) throw badRequest(`included prompt '${message.include.name}' does not exist`, `messages[${index}].include.name`);
    }
  }

  private async labelled(name: string, label: string, param: string): Promise<number> {
    const [row] = await this.db.select().from(promptLabels).where(and(eq(promptLabels.prompt, name), eq(promptLabels.label, label)));
    if (!row) throw badRequest(`prompt '${name}' has no label '${label}'`, `${param}label`);
    return row.version;
  }

  private async latestVersion(name: string, param = ""): Promise<number> {
    const [row] = await this.db.select({ version: promptVersions.version }).from(promptVersions).where(eq(promptVersions.prompt, name)).orderBy(desc(promptVersions.version)).limit(1);
    if (!row) throw param ? badRequest(`prompt '${name}' does not exist`, `${param}name`) : notFound(`prompt '${name}' not found`, "caller_prompt_not_found");
    return row.version;
  }
}
