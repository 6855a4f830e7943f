import { Elysia, t } from "elysia";
import { GatewayError } from "../../http/errors";
import { ConverseRequest } from "../formats/bedrock/wire";
import { fallbacksOf, handleInference, type Inference } from "../handle";
import type { Operation } from "../../upstream/operations";
import { pathParams } from "./path-params";

const ModelPath = pathParams({ modelId: t.String({ minLength: 1 }) });
/** InvokeModel bodies are the model's own JSON, passed to Bedrock untouched. */
const InvokeBody = t.Record(t.String(), t.Unknown());

type Body = { fallbacks?: unknown } & Record<string, unknown>;

const AWS_ERROR_TYPES: Record<number, string> = {
  400: "ValidationException",
  401: "AccessDeniedException",
  403: "AccessDeniedException",
  404: "ResourceNotFoundException",
  408: "ModelTimeoutException",
  429: "ThrottlingException",
  503: "ServiceUnavailableException",
};

/**
 * The gateway error body, plus what AWS SDKs read from an error: the exception's name in
 * `x-amzn-errortype` and a top-level `message`. Without them the SDK reports "UnknownError".
 */
async function awsErrorResponse(error: GatewayError): Promise<Response> {
  const type = AWS_ERROR_TYPES[error.status] ?? (error.status >= 500 ? "InternalServerException" : "ValidationException");
  const response = error.toResponse({ "x-amzn-errortype": type });
  const body = (await response.json()) as Record<string, unknown>;
  return Response.json({ ...body, message: error.message }, { status: response.status, headers: response.headers });
}

const asAwsError = (error: unknown) => {
  if (error instanceof GatewayError) return awsErrorResponse(error);
  throw error;
};

/**
 * Bedrock's runtime surface as the AWS SDK calls it. The SDK signs its requests for AWS; the
 * gateway does not check that signature (it signs anew, with the provider's key, upstream).
 * The model id from the path may be `provider/model`, so Converse reaches any provider; a bare
 * id (or an ARN) goes to `mountProvider`. Fallbacks ride in `x-gw-fallbacks`.
 */
export function bedrockMount(prefix: string, inference: Inference, mountProvider?: string) {
  const handle = (operation: Operation, stream: boolean) => ({ params, body, request }: { params: { modelId: string }; body: Body; request: Request }) => {
    const { fallbacks, ...rest } = body;
    return handleInference(inference, {
      operation,
      format: "bedrock",
      body: rest,
      model: params.modelId,
      fallbacks: fallbacksOf({ fallbacks }, request.headers),
      stream,
      request,
      mountProvider,
    }).catch(asAwsError);
  };

  const converse = { params: ModelPath, body: ConverseRequest };
  // The SDK sends invoke bodies as application/octet-stream unless told otherwise: parse them as JSON regardless.
  const invoke = { params: ModelPath, body: InvokeBody, parse: "json" as const };
  return new Elysia({ name: `bedrock-mount:${prefix}`, prefix })
    .post("/model/:modelId/converse", handle("chat", false), converse)
    .post("/model/:modelId/converse-stream", handle("chat", true), converse)
    .post("/model/:modelId/invoke", handle("invoke", false), invoke)
    .post("/model/:modelId/invoke-with-response-stream", handle("invoke", true), invoke);
}
