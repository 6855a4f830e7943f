import { configuredModels, type ListedModel } from "../provider-registry/model-listing";
import type { Inference } from "./handle";
import { type ServedModel, servedModel } from "./model-ref";

/** Which models the caller of `headers` may see; every model when the deployment has no say (no governance). */
const visibilityOf = (inference: Inference, headers: Headers) => inference.modelsVisibleTo?.(headers) ?? (() => true);

/** The configured models a model listing shows this caller: the ones its virtual key may use. */
export function visibleModels(inference: Inference, headers: Headers): ListedModel[] {
  const visible = visibilityOf(inference, headers);
  return configuredModels(inference.providers).filter(({ provider, model, keyIds }) => visible({ provider: provider.name, model, keyIds }));
}

/** A model named in a path, when a key serves it and the caller may use it. */
export function visibleServedModel(inference: Inference, headers: Headers, raw: string, mountProvider?: string): ServedModel | undefined {
  const visible = visibilityOf(inference, headers);
  const served = servedModel(raw, inference.providers, mountProvider);
  return served && visible(served) ? served : undefined;
}
