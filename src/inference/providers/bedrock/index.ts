import { EVENT_STREAM_CONTENT_TYPE } from "../../formats/bedrock/event-stream";
import type { Operation } from "../../../upstream/operations";
import type { ProviderAdapter, UpstreamCall, UpstreamTarget } from "../../../upstream/adapter";
import { bedrockBatches } from "../../batches/bedrock";
import { bearerOrNone, controlPlaneOf, credentialsOf, keyConfigOf } from "./credentials";
import { ACTIONS, bedrockUrl, modelIdOf, runtimeHost } from "./endpoint";
import { signCall } from "./sign";

/**
 * AWS Bedrock runtime: Converse and ConverseStream for chat (translated through the Bedrock
 * format), InvokeModel and its streamed twin as a passthrough of the model's own body.
 * `network_config.base_url` replaces the regional AWS host.
 */
type ConverseBody = Record<string, unknown> & { inferenceConfig?: Record<string, unknown> };

/** Claude 4.1 and later on Bedrock take one of temperature and topP, as on Anthropic's API: temperature wins. */
function oneSamplerForClaude(operation: Operation, body: Record<string, unknown>, model: string): Record<string, unknown> {
  const { inferenceConfig } = body as ConverseBody;
  if (operation !== "chat" || !/claude/i.test(model) || inferenceConfig?.temperature === undefined || inferenceConfig.topP === undefined) return body;
  const { topP: _topP, ...config } = inferenceConfig;
  return { ...body, inferenceConfig: config };
}

export const bedrock: ProviderAdapter = {
  format: "bedrock",
  operations: new Set<Operation>([...(Object.keys(ACTIONS) as Operation[]), ...bedrockBatches.operations]),
  keyOptional: false,
  buildCall(operation, target, body, stream) {
    const { region, arn } = keyConfigOf(target);
    const url = bedrockUrl(target.baseUrl ?? runtimeHost(region), modelIdOf(target.model, arn), operation, stream);
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: stream ? EVENT_STREAM_CONTENT_TYPE : "application/json",
      ...target.network.extra_headers,
    };
    if (!credentialsOf(target)) headers.authorization = `Bearer ${target.key!.secret}`;
    return { url, headers, body: JSON.stringify(body) };
  },
  translatedBody: oneSamplerForClaude,
  async authorizeCall(call: UpstreamCall, target: UpstreamTarget) {
    const credentials = credentialsOf(target);
    return credentials ? signCall(call, credentials, keyConfigOf(target).region, call.signAs ?? "bedrock") : call;
  },
  listModels: {
    call: (target) => ({ url: `${controlPlaneOf(target)}/foundation-models`, method: "GET", headers: bearerOrNone(target) }),
    ids: (body) => ((body as { modelSummaries?: Array<{ modelId?: unknown }> }).modelSummaries ?? []).map((model) => model.modelId).filter((id): id is string => typeof id === "string"),
  },
  batches: bedrockBatches,
};
