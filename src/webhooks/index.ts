import type { Clock } from "../../actors/runtime/clock";
import type { ActorSnapshotStore } from "../../actors/runtime/snapshot-store";
import type { EnvReader } from "../config/env-reference";
import type { SecretBox } from "../crypto/secret-box";
import type { Database } from "../db/client";
import { webhookEndpoints } from "../db/schema";
import { reloadOnChange } from "../db/table-changes";
import { DeliveryHistory } from "./delivery-history";
import { DeliveryRunner } from "./delivery-runner";
import { WebhookEndpointStore } from "./endpoint-store";
import type { HostResolver } from "../outbound/host-check";
import { notifyJobFinished, type OperationDeps, redeliver, removeEndpoint, sendTestDelivery } from "./operations";
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
}

/**
 * Webhook endpoints and deliveries: the /api/webhooks routes, `jobFinished` for the async
 * jobs, and the delivery actors (`resume` on start, `stop` on shutdown).
 */
export async function createWebhooks(options: WebhooksOptions) {
  const endpoints = new WebhookEndpointStore(options.db, options.secrets, options.resolveHost);
  const history = new DeliveryHistory(options.db);
  const runner = new DeliveryRunner({ ...options, endpoints, history });
  // Deliveries read their endpoint at each attempt, so a reload reaches them without touching their
  // actors; only those of an endpoint another node deleted are stopped (their history went with it).
  const watched = reloadOnChange(options.db, [webhookEndpoints], async () => {
    for (const id of await endpoints.load()) await runner.discardEndpoint(id);
  });
  await endpoints.load();
  const deps: OperationDeps = { endpoints, history, runner, clock: options.clock, redelivering: new Set() };
  const operations = {
    sendTest: (endpointId: string) => sendTestDelivery(deps, endpointId),
    redeliver: (deliveryId: string) => redeliver(deps, deliveryId),
    removeEndpoint: (id: string) => removeEndpoint(deps, id),
  };
  return {
    endpoints,
    runner,
    routes: webhookRoutes({ endpoints, history, webhooks: operations, reach: { resolve: options.resolveHost, configAllowsPrivate: options.configAllowsPrivate } }),
    hasEndpoint: (name: string) => endpoints.findByName(name) !== undefined,
    jobFinished: (job: FinishedJob) => notifyJobFinished(deps, job),
    resume: () => runner.resume(),
    async stop() {
      await watched.stop();
      await runner.stop();
    },
  };
}

export type Webhooks = Awaited<ReturnType<typeof createWebhooks>>;
