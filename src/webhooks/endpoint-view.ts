import type { WebhookEndpoint, WebhookEndpointStore } from "./endpoint-store";

/** An endpoint as every response shows it (spec 2.6): resolved tunables, headers redacted, never the secret. */
export function endpointView(store: WebhookEndpointStore, endpoint: WebhookEndpoint) {
  return {
    id: endpoint.id,
    name: endpoint.name,
    url: endpoint.url,
    events: endpoint.events,
    headers: store.redactedHeadersOf(endpoint),
    include_response: endpoint.includeResponse,
    allow_private_network: endpoint.allowPrivateNetwork,
    disabled: endpoint.disabled,
    max_retries: endpoint.maxRetries,
    retry_backoff_initial_seconds: endpoint.retryBackoffInitialSeconds,
    retry_backoff_max_seconds: endpoint.retryBackoffMaxSeconds,
    attempt_timeout_seconds: endpoint.attemptTimeoutSeconds,
    max_response_payload_kbs: endpoint.maxResponsePayloadKbs,
    max_concurrent_deliveries: endpoint.maxConcurrentDeliveries,
    consecutive_failures: endpoint.consecutiveFailures,
    ...(endpoint.lastSuccessAt && { last_success_at: endpoint.lastSuccessAt.toISOString() }),
    ...(endpoint.lastFailureAt && { last_failure_at: endpoint.lastFailureAt.toISOString() }),
    config_hash: endpoint.configHash,
    created_at: endpoint.createdAt.toISOString(),
    updated_at: endpoint.updatedAt.toISOString(),
  };
}
