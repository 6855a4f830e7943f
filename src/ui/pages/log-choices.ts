import { customers, guardrails, logs, providers, teams, virtualKeys } from "../api/endpoints";

export interface Choice {
  value: string;
  label: string;
}

/** What the logs page names by id: virtual keys, teams, customers, provider keys, guardrails, and the models seen lately. */
export interface LogChoices {
  virtualKeys: Choice[];
  teams: Choice[];
  customers: Choice[];
  providerKeys: Choice[];
  guardrails: Choice[];
  models: Choice[];
}

const named = (rows: Array<{ id: string; name: string }>) => rows.map((row) => ({ value: row.id, label: row.name }));

/** Each list read only when the role may read it (empty otherwise): the filters then fall back to what the URL says. */
export async function loadLogChoices(can: (permission: string) => boolean): Promise<LogChoices> {
  const [keyRows, teamRows, customerRows, providerRows, guardrailRows, ranked] = await Promise.all([
    can("VirtualKeys:View") ? virtualKeys.list() : [],
    can("Teams:View") ? teams.list() : [],
    can("Customers:View") ? customers.list() : [],
    can("ModelProvider:View") ? providers.list().then((answer) => answer.providers) : [],
    can("Guardrails:View") ? guardrails.list() : [],
    logs.rankings({ period: "30d" }).then((answer) => answer.rankings),
  ]);
  return {
    virtualKeys: named(keyRows),
    teams: named(teamRows),
    customers: named(customerRows),
    providerKeys: providerRows.flatMap((provider) => provider.keys.map((key) => ({ value: key.id, label: `${provider.provider} / ${key.name}` }))),
    // Verdicts name a guardrail by its name.
    guardrails: guardrailRows.map((row) => ({ value: row.name, label: row.name })),
    models: [...new Set(ranked.map((row) => row.model))].sort().map((model) => ({ value: model, label: model })),
  };
}

/** The label of `value` among `choices`, or the value itself when it is not one of them. */
export const labelOf = (choices: Choice[] | undefined, value: string | null | undefined) => (value ? (choices?.find((choice) => choice.value === value)?.label ?? value) : undefined);
