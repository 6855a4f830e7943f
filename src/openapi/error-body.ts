import { Type as t } from "@sinclair/typebox";

/** The body of every error the gateway answers (GatewayError.toBody), as the document shows it. */
export const GatewayErrorBody = t.Object(
  {
    event_id: t.String(),
    type: t.String({ description: "OpenAI-style error type: invalid_request_error, authentication_error, permission_error, not_found_error, rate_limit_error, api_error, ..." }),
    is_gateway_error: t.Boolean({ description: "False when the error came from the provider and is passed along." }),
    status_code: t.Integer(),
    error: t.Object({
      type: t.String(),
      code: t.String(),
      message: t.String(),
      param: t.Optional(t.String({ description: "The bad field of a 400, as a path (`messages[0].role`)." })),
      event_id: t.String(),
    }),
    extra_fields: t.Object(
      {
        error_type: t.String({ description: "Prefixed by its fault domain: `caller_`, `policy_`, `provider_` or `gateway_`." }),
        provider: t.Optional(t.String()),
        retry_after_ms: t.Optional(t.Number()),
        routing_info: t.Optional(t.Object({}, { additionalProperties: true, description: "Which providers and models were tried, fallbacks included." })),
      },
      { additionalProperties: true },
    ),
  },
  { description: "The gateway's error body. A2A routes answer errors in the A2A envelope instead." },
);

/** The A2A bindings' error envelope: a JSON-RPC error on json-rpc, a google.rpc.Status on the HTTP+JSON binding. */
export const A2AErrorBody = t.Object(
  { error: t.Object({ code: t.Integer(), message: t.String() }, { additionalProperties: true }) },
  { additionalProperties: true, description: "The A2A protocol's error envelope (JSON-RPC 2.0 error, or google.rpc.Status on the HTTP+JSON binding)." },
);
