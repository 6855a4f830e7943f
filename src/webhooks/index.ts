import type { Clock } from "../../actors/runtime/clock";
import type { ActorSnapshotStore } from "../../actors/runtime/snapshot-store";
import type { EnvReader } from "../config/env-reference";
import type { SecretBox } from "../crypto/secret-box";
import type { Database } from "../db/client";
import { webhookEndpoints } from "../db/schema";
import { reloadOnChange } from "../db/table-changes";
import { DeliveryHistory } from "./delivery-history";
import { DeliveryRunner } from "./delivery-runner";
import { EndpointLifecycles, policyOf } from "./endpoint-lifecycle";
import { WebhookEndpointStore } from "./endpoint-store";
import type { HostResolver } from "../outbound/host-check";
import {
  announceEndpointChange,
  createEndpoint,
  type EndpointAuditEntry,
  notifyJobFinished,
  type OperationDeps,
  recoverEndpoint,
  redeliver,
  removeEndpoint,
  sendTestDelivery,
  sendToEndpoint,
  updateEndpoint,
} from "./operations";
import type { FinishedJob } from "./payload";
import { webhookRoutes } from "./routes";

export type { FinishedJob } from "./payload";
export type { HostResolver } from "../outbound/host-check";

export interface WebhooksOptions {
  db: Database;
  secrets: SecretBox;
  snapshots: ActorSnapshotStore;
  clock: Clock;
  resolveHost: HostResolver;
  /** Whether the configuration lets anyone, not only the admin, turn on private receivers. */
  configAllowsPrivate: boolean;
  /** `env.NAME` header values, under the configuration's allow-list. */
  readEnv: EnvReader;
  /** The audit log (enterprise): automatic disables and re-enables are entered in it. */
  audit?: (entry: EndpointAuditEntry) => Promise<void>;
}

/**
 * Webhook endpoints and deliveries: the /api/webhooks routes, `jobFinished` for the async
 * jobs, and the delivery actors (`resume` on start, `stop` on shutdown).
 */
export async function createWebhooks(options: WebhooksOptions) {
  const endpoints = new WebhookEndpointStore(options.db, options.secrets, options.resolveHost);
  const history = new DeliveryHistory(options.db);
  const { clock } = options;
  // Each attempt's outcome and each message that failed for good tell the endpoint's lifecycle.
  const tell = (endpointId: string, event: Parameters<EndpointLifecycles["tell"]>[1]) =>
    lifecycles.tell(endpointId, event).catch((error) => console.error(`webhook endpoint ${endpointId}: telling its lifecycle failed`, error));
  const runner = new DeliveryRunner(
    { ...options, endpoints, history },
    {
      attempted(endpointId, result) {
        const endpoint = endpoints.get(endpointId);
        if (!endpoint) return;
        const at = clock.now();
        if (result.outcome === "delivered") {
          if (endpoint.state === "failing") void tell(endpointId, { type: "attempt.succeeded", at, policy: policyOf(endpoint) });
          return;
        }
        if (endpoint.state !== "active") return;
        void endpoints.consecutiveFailures(endpointId).then((consecutiveFailures) => {
          if (consecutiveFailures >= endpoint.failingAfterFailedAttempts) return tell(endpointId, { type: "attempt.failed", consecutiveFailures, at, policy: policyOf(endpoint) });
        });
      },
      failed(endpointId) {
        const endpoint = endpoints.get(endpointId);
        if (endpoint && (endpoint.state === "active" || endpoint.state === "failing")) void tell(endpointId, { type: "delivery.failed", at: clock.now(), policy: policyOf(endpoint) });
      },
    },
  );
  // Deliveries read their endpoint at each attempt, so a reload reaches them without touching their
  // actors; only those of an endpoint another node deleted are stopped (their history went with it).
  const watched = reloadOnChange(options.db, [webhookEndpoints], async () => {
    for (const id of await endpoints.load()) await runner.discardEndpoint(id);
  });
  await endpoints.load();
  const lifecycles: EndpointLifecycles = new EndpointLifecycles({
    snapshots: options.snapshots,
    clock,
    endpoints,
    announce: (endpointId, event, context) => announceEndpointChange(deps, endpointId, event, context),
  });
  const deps: OperationDeps = { endpoints, history, runner, lifecycles, clock, redelivering: new Set(), audit: options.audit };
  const operations = {
    createEndpoint: (input: Parameters<typeof createEndpoint>[1]) => createEndpoint(deps, input),
    updateEndpoint: (id: string, input: Parameters<typeof updateEndpoint>[2]) => updateEndpoint(deps, id, input),
    sendTest: (endpointId: string) => sendTestDelivery(deps, endpointId),
    redeliver: (deliveryId: string) => redeliver(deps, deliveryId),
    recover: (id: string, since: string) => recoverEndpoint(deps, id, since),
    removeEndpoint: (id: string) => removeEndpoint(deps, id),
  };
  return {
    endpoints,
    runner,
    routes: webhookRoutes({ endpoints, history, webhooks: operations, reach: { resolve: options.resolveHost, configAllowsPrivate: options.configAllowsPrivate } }),
    hasEndpoint: (name: string) => endpoints.findByName(name) !== undefined,
    jobFinished: (job: FinishedJob) => notifyJobFinished(deps, job),
    /** Sends a message of another area (an alert) to one endpoint, signed and retried as every delivery. */
    sendToEndpoint: (endpointId: string, event: string, payload: string, subject: string) => sendToEndpoint(deps, endpointId, event, payload, subject),
    async resume() {
      await lifecycles.resume();
      return runner.resume();
    },
    async stop() {
      await watched.stop();
      await runner.stop();
      await lifecycles.stop();
    },
  };
}

export type Webhooks = Awaited<ReturnType<typeof createWebhooks>>;
