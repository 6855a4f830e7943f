import { Elysia } from "elysia";
import { notFound } from "../../http/errors";
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

const FRAMEWORKS: ReadonlySet<string> = new Set(FRAMEWORK_ROOTS.map((root) => root.slice(1)));

/**
 * The framework mounts, one set of routes under `/:framework` for all of them (three copies of
 * every format's routes cost ~6-8 MB and a fifth of the app's build); any other first segment is
 * no mount.
 */
function frameworkMounts(inference: Inference) {
  return new Elysia({ name: "framework-mounts" })
    // Before validation: an unknown root is no route, whatever its body.
    .onTransform(({ params, path }) => {
      if (!FRAMEWORKS.has((params as { framework?: string }).framework ?? "")) throw notFound(`no route at ${path}`, "caller_route_not_found");
    })
    .use(openAIMount("/:framework/v1", inference))
    .use(providerFormatMounts("/:framework", inference));
}

/** Every inference surface: /v1, the provider mounts, and the framework mounts. */
export function inferenceMounts(inference: Inference) {
  return (
    new Elysia({ name: "inference-mounts" })
      .use(openAIMount("/v1", inference))
      .use(providerFormatMounts("", inference))
      // The editor integration (spec 4.16's second mount) speaks only the messages endpoints.
      .use(anthropicMessagesMount("/claude-code", inference, "anthropic"))
      .use(frameworkMounts(inference))
  );
}
