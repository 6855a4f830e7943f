/**
 * The gateway error body of spec section 7. Errors are values with a fault domain,
 * thrown once where the cause is known and rendered once by the HTTP layer.
 */

export type FaultDomain = "caller" | "policy" | "provider" | "gateway";

export interface RoutingInfo {
  provider?: string;
  model?: string;
  key?: string;
  primary_provider?: string;
  primary_model?: string;
  requested_provider?: string;
  requested_model?: string;
  is_fallback?: boolean;
  attempts?: Array<{ provider: string; model: string; key?: string; status?: number; error_type?: string; is_fallback: boolean }>;
}

export interface ExtraFields {
  provider?: string;
  model_requested?: string;
  original_model_requested?: string;
  resolved_model_used?: string;
  request_type?: string;
  error_type?: string;
  retry_after_ms?: number;
  routing_info?: RoutingInfo;
  latency?: number;
  key_statuses?: Array<{ key_id: string; status: string; provider: string; error?: string }>;
  [field: string]: unknown;
}

export interface GatewayErrorInit {
  status: number;
  /** Low-cardinality classification; the fault domain is its prefix. */
  errorType: `${FaultDomain}_${string}`;
  message: string;
  param?: string;
  code?: string;
  /** False when the error was produced by an upstream provider and passed along. */
  isGatewayError?: boolean;
  extra?: ExtraFields;
}

const OPENAI_STYLE_TYPE: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  402: "insufficient_quota",
  403: "permission_error",
  404: "not_found_error",
  409: "conflict_error",
  410: "gone_error",
  413: "request_too_large",
  422: "unprocessable_entity_error",
  429: "rate_limit_error",
};

export class GatewayError extends Error {
  readonly status: number;
  readonly errorType: string;
  readonly param?: string;
  readonly code?: string;
  readonly isGatewayError: boolean;
  extra: ExtraFields;

  constructor(init: GatewayErrorInit) {
    super(init.message);
    this.status = init.status;
    this.errorType = init.errorType;
    this.param = init.param;
    this.code = init.code;
    this.isGatewayError = init.isGatewayError ?? true;
    this.extra = init.extra ?? {};
  }

  toBody(eventId: string = crypto.randomUUID()) {
    const type = OPENAI_STYLE_TYPE[this.status] ?? (this.status >= 500 ? "api_error" : "invalid_request_error");
    return {
      event_id: eventId,
      type,
      is_gateway_error: this.isGatewayError,
      status_code: this.status,
      error: {
        type,
        code: this.code ?? this.errorType,
        message: this.message,
        ...(this.param === undefined ? {} : { param: this.param }),
        event_id: eventId,
      },
      extra_fields: { ...this.extra, error_type: this.errorType },
    };
  }

  toResponse(headers?: Record<string, string>): Response {
    const extraHeaders: Record<string, string> = { ...headers };
    if (this.extra.retry_after_ms !== undefined) {
      extraHeaders["retry-after"] = String(Math.ceil(this.extra.retry_after_ms / 1000));
    }
    // A request that timed out may still be sending its body: the connection goes with it.
    if (this.status === 408) extraHeaders.connection = "close";
    return Response.json(this.toBody(), { status: this.status, headers: extraHeaders });
  }
}

export type GatewayErrorBody = ReturnType<GatewayError["toBody"]>;

export const badRequest = (message: string, param?: string, errorType: `caller_${string}` = "caller_invalid_request") =>
  new GatewayError({ status: 400, errorType, message, param });

export const notFound = (message: string, errorType: `caller_${string}` = "caller_not_found") =>
  new GatewayError({ status: 404, errorType, message });

/** A WebSocket route asked without the upgrade. */
export const upgradeRequired = (what: string) =>
  new GatewayError({ status: 426, errorType: "caller_upgrade_required", message: `${what} is a WebSocket: send the upgrade request (\`Upgrade: websocket\`)` });

export const conflict = (message: string, param?: string) =>
  new GatewayError({ status: 409, errorType: "caller_conflict", message, param });
