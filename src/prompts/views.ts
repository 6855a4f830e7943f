import type { Static } from "@sinclair/typebox";
import type { Principal } from "../access";
import type { PromptLabelRow, PromptVersionRow } from "../db/schema";
import type { PromptRecord } from "./store";
import type { LabelReply, PromptVersionView, PromptView } from "./schemas";

/** Who wrote a version or moved a label: an admin's or user's id, else the kind of caller (`setup`) and its id (`api_key:<id>`). */
export function authorOf({ type, id }: Principal): string {
  if (type === "admin" || type === "user") return id;
  return id && id !== type ? `${type}:${id}` : type;
}

export function versionView(row: PromptVersionRow, labels: readonly PromptLabelRow[]): Static<typeof PromptVersionView> {
  const { messages, variables, model, parameters } = row.template;
  return {
    prompt: row.prompt,
    version: row.version,
    messages,
    variables,
    ...(model ? { model } : {}),
    parameters,
    commit_message: row.commitMessage,
    author: row.author,
    labels: labels.filter((label) => label.version === row.version).map((label) => label.label),
    created_at: row.createdAt.toISOString(),
  };
}

export function promptView({ prompt, versions, labels }: PromptRecord): Static<typeof PromptView> {
  return {
    name: prompt.name,
    folder: prompt.folder,
    description: prompt.description,
    latest_version: Math.max(0, ...versions.map((row) => row.version)),
    labels: Object.fromEntries(labels.map((row) => [row.label, row.version])),
    created_at: prompt.createdAt.toISOString(),
    updated_at: prompt.updatedAt.toISOString(),
  };
}

export const labelView = (row: PromptLabelRow): Static<typeof LabelReply> => ({ prompt: row.prompt, label: row.label, version: row.version, moved_by: row.movedBy, moved_at: row.movedAt.toISOString() });
