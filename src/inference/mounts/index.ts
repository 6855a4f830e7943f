import { Elysia } from "elysia";
import type { ProviderStore } from "../../provider-registry/store";
import { openAIMount } from "./openai";

/** Framework mounts proxy every format: OpenAI's at their root, each provider's beneath. */
const FRAMEWORK_ROOTS = ["/litellm", "/langchain", "/pydanticai"] as const;

/** The provider formats served under a root ("" for the provider mounts themselves). */
function providerFormatMounts(root: string, store: ProviderStore) {
  return new Elysia({ name: `provider-format-mounts:${root}` }).use(openAIMount(`${root}/openai/v1`, store, "openai"));
}

/** Every inference surface: /v1, the provider mounts, and the framework mounts. */
export function inferenceMounts(store: ProviderStore) {
  const app = new Elysia({ name: "inference-mounts" }).use(openAIMount("/v1", store)).use(providerFormatMounts("", store));
  for (const root of FRAMEWORK_ROOTS) app.use(openAIMount(`${root}/v1`, store)).use(providerFormatMounts(root, store));
  return app;
}
