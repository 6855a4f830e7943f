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
    max_deliveries_per_second: endpoint.maxDeliveriesPerSecond,
    failing_after_failed_attempts: endpoint.failingAfterFailedAttempts,
    disable_after_failing_seconds: endpoint.disableAfterFailingSeconds,
    disable_after_failed_messages: endpoint.disableAfterFailedMessages,
    /** Its lifecycle: active, failing, disabled_automatically or disabled (actors/webhook-endpoint.ts). */
    state: endpoint.state,
    state_since: (endpoint.stateSince ?? endpoint.createdAt).toISOString(),
    failing_since: endpoint.failingSince?.toISOString() ?? null,
    disabled_reason: endpoint.disabledReason,
    consecutive_failures: endpoint.consecutiveFailures,
    ...(endpoint.lastSuccessAt && { last_success_at: endpoint.lastSuccessAt.toISOString() }),
    ...(endpoint.lastFailureAt && { last_failure_at: endpoint.lastFailureAt.toISOString() }),
    config_hash: endpoint.configHash,
    created_at: endpoint.createdAt.toISOString(),
    updated_at: endpoint.updatedAt.toISOString(),
  };
}
