import { badRequest } from "../../http/errors";
import type { StoredWarpConfig } from "../config/schema";

/** The model a chat runs on: the default or one of the additional models (spec 2.2). */
export interface ChosenModel {
  provider: string;
  model: string;
  /** `provider/model`, as the pipeline takes it. */
  ref: string;
  /** The pinned key; empty uses the provider's whole key pool. */
  keyId: string;
}

const chosen = (provider: string, model: string, keyId: string): ChosenModel => ({ provider, model, ref: `${provider}/${model}`, keyId });

/**
 * A chat names no model (the default answers) or one by provider and model; only the default
 * and the additional models may be named (spec 4.1 rule 7), anything else is a 400.
 */
export function chooseModel(config: StoredWarpConfig, wanted: { provider?: string; model?: string }): ChosenModel {
  if (wanted.provider === undefined && wanted.model === undefined) return chosen(config.provider, config.model, config.api_key_id);
  if (!wanted.provider || !wanted.model) throw badRequest("name a model by both provider and model, or by neither for the default", wanted.provider ? "model" : "provider");
  if (wanted.provider === config.provider && wanted.model === config.model) return chosen(config.provider, config.model, config.api_key_id);
  const additional = config.additional_models.find((entry) => entry.provider === wanted.provider && entry.model === wanted.model);
  if (!additional) {
    const offered = [`${config.provider}/${config.model}`, ...config.additional_models.map((entry) => `${entry.provider}/${entry.model}`)].join(", ");
    throw badRequest(`${wanted.provider}/${wanted.model} is not one of the agent's models (${offered})`, "model", "caller_model_not_offered");
  }
  return chosen(additional.provider, additional.model, additional.api_key_id ?? "");
}
