import {
  type A2AError,
  ERROR_INFO_TYPE,
  type ErrorDetail,
  fromJsonRpcErrorResponse,
  fromRestErrorBody,
  type RestErrorBody,
  restStatusFor,
  toJsonRpcError,
  toRestErrorBody,
} from "@a2a-js/sdk/errors";
import type { GatewayError } from "../../http/errors";

export type RestErrorStatus = RestErrorBody["error"];
export type JsonRpcErrorObject = ReturnType<typeof toJsonRpcError>;

/**
 * An A2A error in both bindings' shapes: the REST envelope `{error:{code, status, message,
 * details}}` (spec section 7) and the JSON-RPC error object, so a failure met on one binding
 * upstream can be answered on the other.
 */
export interface A2AFailure {
  httpStatus: number;
  rest: RestErrorStatus;
  rpc: JsonRpcErrorObject;
  /** Seconds, for the `retry-after` header of policy refusals. */
  retryAfter?: number;
  /** The gateway's own refusal: answered with its HTTP status even on JSON-RPC, where A2A errors travel in a 200. */
  byGateway?: true;
}

/** `google.rpc.Code` names for the statuses the gateway itself answers with. */
const STATUS_NAMES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  402: "RESOURCE_EXHAUSTED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  409: "ABORTED",
  429: "RESOURCE_EXHAUSTED",
  499: "CANCELLED",
  500: "INTERNAL",
  501: "UNIMPLEMENTED",
  502: "UNAVAILABLE",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

/** JSON-RPC's range for implementation-defined server errors; A2A's own codes start at -32001. */
const GATEWAY_RPC_CODE = -32000;
const GATEWAY_ERROR_DOMAIN = "gateway";

export function failureFromA2AError(error: A2AError): A2AFailure {
  const httpStatus = restStatusFor(error);
  return { httpStatus, rest: toRestErrorBody(error, httpStatus).error, rpc: toJsonRpcError(error) };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** An upstream's REST error body, kept as sent; its JSON-RPC twin comes from the ErrorInfo reason. */
export function failureFromRestBody(httpStatus: number, body: unknown): A2AFailure | undefined {
  const error = isRecord(body) ? body.error : undefined;
  if (!isRecord(error) || typeof error.message !== "string") return undefined;
  const details = Array.isArray(error.details) ? (error.details.filter(isRecord) as ErrorDetail[]) : [];
  const rest: RestErrorStatus = {
    code: typeof error.code === "number" ? error.code : httpStatus,
    status: typeof error.status === "string" ? error.status : (STATUS_NAMES[httpStatus] ?? "UNKNOWN"),
    message: error.message,
    details,
  };
  return { httpStatus, rest, rpc: toJsonRpcError(fromRestErrorBody(rest, { statusCode: httpStatus })) };
}

/** An upstream's JSON-RPC error object, kept as sent; its REST twin comes from the A2A code. */
export function failureFromJsonRpc(error: unknown): A2AFailure | undefined {
  if (!isRecord(error) || typeof error.code !== "number" || typeof error.message !== "string") return undefined;
  const rpc = error as JsonRpcErrorObject;
  const semantic = fromJsonRpcErrorResponse({ jsonrpc: "2.0", id: null, error: rpc });
  const httpStatus = restStatusFor(semantic);
  return { httpStatus, rest: toRestErrorBody(semantic, httpStatus).error, rpc };
}

/** A refusal or failure of the gateway's own (authentication, policy, upstream unreachable). */
export function failureFromGateway(error: GatewayError): A2AFailure {
  const metadata: Record<string, string> = { error_type: error.errorType };
  if (error.extra.retry_after_ms !== undefined) metadata.retry_after_ms = String(error.extra.retry_after_ms);
  const details: ErrorDetail[] = [{ "@type": ERROR_INFO_TYPE, reason: error.errorType.toUpperCase(), domain: GATEWAY_ERROR_DOMAIN, metadata }];
  return {
    httpStatus: error.status,
    rest: { code: error.status, status: STATUS_NAMES[error.status] ?? "UNKNOWN", message: error.message, details },
    rpc: { code: GATEWAY_RPC_CODE, message: error.message, data: details },
    retryAfter: error.extra.retry_after_ms === undefined ? undefined : Math.ceil(error.extra.retry_after_ms / 1000),
    byGateway: true,
  };
}
