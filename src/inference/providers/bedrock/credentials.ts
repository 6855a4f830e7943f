import type { UpstreamTarget } from "../../../upstream/adapter";
import { DEFAULT_REGION } from "./endpoint";
import type { AwsCredentials } from "./sign";

/** The key's bedrock_key_config with env references resolved and the region defaulted. */
export function keyConfigOf(target: UpstreamTarget) {
  const config = target.key?.config.bedrock_key_config ?? {};
  const read = (value: string | undefined) => (value ? target.readEnv(value) || undefined : undefined);
  return { accessKey: read(config.access_key), secretKey: read(config.secret_key), sessionToken: read(config.session_token), region: read(config.region) ?? DEFAULT_REGION, arn: read(config.arn) };
}

/** IAM credentials sign with SigV4; a key with only a `value` is a Bedrock API key, sent as a bearer token. */
export function credentialsOf(target: UpstreamTarget): AwsCredentials | undefined {
  const { accessKey, secretKey, sessionToken } = keyConfigOf(target);
  if (!accessKey && !secretKey) {
    if (!target.key?.secret) throw new Error("bedrock key needs bedrock_key_config.access_key and secret_key, or a Bedrock API key as value");
    return undefined;
  }
  if (!accessKey || !secretKey) throw new Error("bedrock key needs both bedrock_key_config.access_key and secret_key");
  return { accessKeyId: accessKey, secretAccessKey: secretKey, ...(sessionToken ? { sessionToken } : {}) };
}

/** Headers of a call to Bedrock's control plane: a Bedrock API key as bearer; IAM credentials sign later. */
export function bearerOrNone(target: UpstreamTarget): Record<string, string> {
  const headers: Record<string, string> = { ...target.network.extra_headers };
  if (!credentialsOf(target)) headers.authorization = `Bearer ${target.key!.secret}`;
  return headers;
}

/** Bedrock's control plane (jobs, model lists): `network_config.base_url` in place of the regional AWS host. */
export const controlPlaneOf = (target: UpstreamTarget) => (target.baseUrl ?? `https://bedrock.${keyConfigOf(target).region}.amazonaws.com`).replace(/\/+$/, "");
