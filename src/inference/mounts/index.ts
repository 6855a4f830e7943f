import { Elysia } from "elysia";
import type { Inference } from "../handle";
import { anthropicMessagesMount, anthropicMount } from "./anthropic";
import { azureDeploymentsMount } from "./azure-deployments";
import { bedrockMount } from "./bedrock";
import { cohereMount } from "./cohere";
import { genaiMount } from "./genai";
import { openAIMount } from "./openai";

/** Framework mounts proxy every format: OpenAI's at their root, each provider's beneath. */
const FRAMEWORK_ROOTS = ["/litellm", "/langchain", "/pydanticai"] as const;

/** Every path under these is a provider or framework mount, where `x-gw-async` headers apply. */
export const MOUNT_ROOTS = ["/openai", "/anthropic", "/bedrock", "/cohere", "/genai", "/claude-code", ...FRAMEWORK_ROOTS] as const;

/** The provider formats served under a root ("" for the provider mounts themselves). */
function providerFormatMounts(root: string, inference: Inference) {
  return new Elysia({ name: `provider-format-mounts:${root}` })
    .use(openAIMount(`${root}/openai/v1`, inference, "openai"))
    .use(azureDeploymentsMount(`${root}/openai`, inference, "openai"))
    .use(anthropicMount(`${root}/anthropic`, inference, "anthropic"))
    .use(bedrockMount(`${root}/bedrock`, inference, "bedrock"))
    .use(cohereMount(`${root}/cohere`, inference, "cohere"))
    .use(genaiMount(`${root}/genai`, inference, "gemini"));
}

/** Every inference surface: /v1, the provider mounts, and the framework mounts. */
export function inferenceMounts(inference: Inference) {
  const app = new Elysia({ name: "inference-mounts" }).use(openAIMount("/v1", inference)).use(providerFormatMounts("", inference));
  // The editor integration (spec 4.16's second mount) speaks only the messages endpoints.
  app.use(anthropicMessagesMount("/claude-code", inference, "anthropic"));
  for (const root of FRAMEWORK_ROOTS) app.use(openAIMount(`${root}/v1`, inference)).use(providerFormatMounts(root, inference));
  return app;
}
