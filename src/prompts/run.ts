import { badRequest } from "../http/errors";
import { declaredVariables, renderedMessages, variableValues } from "./render";
import type { PromptRunFields } from "./schemas";
import { LATEST, type PromptStore } from "./store";

export interface RenderedRun {
  /** The chat body: the version's model and parameters, the run's overrides, the rendered messages then the run's turns. */
  body: { model: string; messages: Array<Record<string, unknown>> } & Record<string, unknown>;
  /** What the log row records of the prompt: `prompt`, `prompt_version`, and `prompt_label` when a label chose it. */
  metadata: Record<string, string>;
}

/** Renders a run of prompt `name`: its version by label or number (else the newest), variables checked by declared type. */
export async function renderRun(store: PromptStore, name: string, { variables, label, version, messages = [], model, ...overrides }: PromptRunFields): Promise<RenderedRun> {
  if (label !== undefined && version !== undefined) throw badRequest("name a label or a version, not both", "version");
  const row = await store.runVersion(name, { label, version });
  const expanded = await store.expandedMessages(row);
  // Included prompts' variables are required strings unless this version declares them.
  const values = variableValues(declaredVariables(expanded, row.template.variables), variables);
  const chosenModel = model ?? row.template.model;
  if (!chosenModel) throw badRequest(`prompt '${name}' version ${row.version} names no model; give one`, "model");
  const metadata: Record<string, string> = { prompt: name, prompt_version: String(row.version) };
  if (version === undefined) metadata.prompt_label = label ?? LATEST;
  return {
    body: { ...row.template.parameters, ...overrides, model: chosenModel, messages: [...renderedMessages(expanded, values), ...messages] },
    metadata,
  };
}
