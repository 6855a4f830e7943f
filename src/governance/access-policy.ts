import { GatewayError } from "../http/errors";
import type { ModelRef, ServedModel } from "../inference/model-ref";
import type { ProviderStore } from "../provider-registry/store";
import type { Caller } from "./caller";
import type { ProviderConfig } from "../db/schema/types";

const forbidden = (errorType: `policy_${string}`, message: string, param: string) => new GatewayError({ status: 403, errorType, message, param });

export const configAllowsModel = (config: ProviderConfig, model: string) => !config.allowed_models?.length || config.allowed_models.includes("*") || config.allowed_models.includes(model);

const paramOf = (index: number) => (index === 0 ? "model" : `fallbacks[${index - 1}]`);

/** Why the key may not use `target`, or undefined when it may. */
function refusalOf({ key }: Caller, target: ModelRef): { errorType: `policy_${string}`; message: string } | undefined {
  if (key.providerConfigs.length === 0) return undefined;
  const config = key.providerConfigs.find((candidate) => candidate.provider === target.provider);
  if (!config) return { errorType: "policy_provider_not_allowed", message: `virtual key '${key.name}' may not use provider '${target.provider}'` };
  if (!configAllowsModel(config, target.model)) return { errorType: "policy_model_not_allowed", message: `virtual key '${key.name}' may not use model '${target.model}' on provider '${target.provider}'` };
  return undefined;
}

/** A key with `allowed_prompts` makes runs of those prompts and no other call: a plain request or another prompt is a 403 naming it. */
export function assertPromptAllowed({ key }: Caller, prompt: string | undefined): void {
  if (key.allowedPrompts.length === 0 || (prompt !== undefined && key.allowedPrompts.includes(prompt))) return;
  const refused = prompt === undefined ? "a request that runs no prompt" : `prompt '${prompt}'`;
  throw forbidden("policy_prompt_not_allowed", `virtual key '${key.name}' may not run ${refused}; it runs only ${key.allowedPrompts.map((name) => `'${name}'`).join(", ")}`, "prompt");
}

/**
 * A key with `provider_configs` may use only those providers, each only for its allowed
 * models; a key without any may use every provider.
 */
export function assertTargetsAllowed(caller: Caller, targets: readonly ModelRef[]): void {
  targets.forEach((target, index) => {
    const refusal = refusalOf(caller, target);
    if (refusal) throw forbidden(refusal.errorType, refusal.message, paramOf(index));
  });
}

/**
 * Whether the key may use a served model: the rule assertTargetsAllowed enforces, and one of the
 * provider keys serving it inside the key's `key_ids`.
 */
export function mayUse(caller: Caller, served: ServedModel): boolean {
  if (refusalOf(caller, served)) return false;
  const allowed = allowedKeyIdsOf(caller)?.[served.provider];
  return !allowed || served.keyIds.length === 0 || served.keyIds.some((id) => allowed.includes(id));
}

/** Per provider, the only keys the virtual key may use; providers it does not restrict are absent. */
export function allowedKeyIdsOf({ key }: Caller): Record<string, string[]> | undefined {
  const restricted = key.providerConfigs.filter((config) => config.key_ids?.length);
  return restricted.length ? Object.fromEntries(restricted.map((config) => [config.provider, config.key_ids!])) : undefined;
}

/** `x-gw-api-key-id` may pin only a key the virtual key is allowed to use. */
export function assertPinnedKeyAllowed(caller: Caller, pinnedKeyId: string | null, providers: ProviderStore): void {
  if (!pinnedKeyId) return;
  const owner = providers.list().find((provider) => provider.keys.some((candidate) => candidate.id === pinnedKeyId));
  const allowed = owner && allowedKeyIdsOf(caller)?.[owner.name];
  if (allowed && !allowed.includes(pinnedKeyId)) throw forbiddenKey(caller, pinnedKeyId, "x-gw-api-key-id");
}

export const forbiddenKey = ({ key }: Caller, keyId: string, param: string) => forbidden("policy_key_not_allowed", `virtual key '${key.name}' may not use provider key '${keyId}'`, param);
