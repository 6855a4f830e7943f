import { resolveEnvReference } from "../../../config/env-reference";
import { EVENT_STREAM_CONTENT_TYPE } from "../../formats/bedrock/event-stream";
import type { Operation } from "../../operations";
import type { ProviderAdapter, UpstreamCall, UpstreamTarget } from "../types";
import { ACTIONS, bedrockUrl, DEFAULT_REGION, modelIdOf, runtimeHost } from "./endpoint";
import { type AwsCredentials, signCall } from "./sign";

function keyConfigOf(target: UpstreamTarget) {
  const config = target.key?.config.bedrock_key_config ?? {};
  const read = (value: string | undefined) => (value ? resolveEnvReference(value) || undefined : undefined);
  return { accessKey: read(config.access_key), secretKey: read(config.secret_key), sessionToken: read(config.session_token), region: read(config.region) ?? DEFAULT_REGION, arn: read(config.arn) };
}

/** IAM credentials sign with SigV4; a key with only a `value` is a Bedrock API key, sent as a bearer token. */
function credentialsOf(target: UpstreamTarget): AwsCredentials | undefined {
  const { accessKey, secretKey, sessionToken } = keyConfigOf(target);
  if (!accessKey && !secretKey) {
    if (!target.key?.secret) throw new Error("bedrock key needs bedrock_key_config.access_key and secret_key, or a Bedrock API key as value");
    return undefined;
  }
  if (!accessKey || !secretKey) throw new Error("bedrock key needs both bedrock_key_config.access_key and secret_key");
  return { accessKeyId: accessKey, secretAccessKey: secretKey, ...(sessionToken ? { sessionToken } : {}) };
}

/**
 * AWS Bedrock runtime: Converse and ConverseStream for chat (translated through the Bedrock
 * format), InvokeModel and its streamed twin as a passthrough of the model's own body.
 * `network_config.base_url` replaces the regional AWS host.
 */
export const bedrock: ProviderAdapter = {
  format: "bedrock",
  operations: new Set(Object.keys(ACTIONS) as Operation[]),
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
  async authorizeCall(call: UpstreamCall, target: UpstreamTarget) {
    const credentials = credentialsOf(target);
    return credentials ? signCall(call, credentials, keyConfigOf(target).region) : call;
  },
};
