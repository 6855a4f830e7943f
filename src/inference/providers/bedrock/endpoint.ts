import type { Operation } from "../../../upstream/operations";

/** Region used when a key names none, as the AWS SDKs' most common default. */
export const DEFAULT_REGION = "us-east-1";

/** Bedrock's action for each operation: the plain one, and the streamed one. */
export const ACTIONS: Partial<Record<Operation, { plain: string; streamed: string }>> = {
  chat: { plain: "converse", streamed: "converse-stream" },
  invoke: { plain: "invoke", streamed: "invoke-with-response-stream" },
};

/** Path segments are encoded as the AWS SDKs encode them: encodeURIComponent plus `!'()*`. */
const encodePathSegment = (segment: string) => encodeURIComponent(segment).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * The model id Bedrock is asked for. A key's `arn` is either a whole resource ARN (an inference
 * profile, a provisioned model: used as is) or an ARN prefix ending in the resource type, to which
 * the model is appended (`arn:aws:bedrock:us-east-1:123456789012:inference-profile` + `/us.anthropic...`).
 * A model that already is an ARN (through an alias, say) is used as is.
 */
export function modelIdOf(model: string, arn: string | undefined): string {
  if (!arn || model.startsWith("arn:")) return model;
  return arn.includes("/") ? arn : `${arn.replace(/\/+$/, "")}/${model}`;
}

export function bedrockUrl(root: string, modelId: string, operation: Operation, stream: boolean): string {
  const action = ACTIONS[operation];
  if (!action) throw new Error(`Bedrock has no ${operation} action`);
  return `${root.replace(/\/+$/, "")}/model/${encodePathSegment(modelId)}/${stream ? action.streamed : action.plain}`;
}

export const runtimeHost = (region: string) => `https://bedrock-runtime.${region}.amazonaws.com`;
