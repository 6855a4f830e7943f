import type { TestGateway } from "./gateway";
import { SIGNATURE_REFUSED, type WebhookReceiver } from "./webhook-receiver";

export interface EndpointBody {
  id: string;
  name: string;
  url: string;
  events: string[];
  headers: Record<string, string>;
  include_response: boolean;
  allow_private_network: boolean;
  disabled: boolean;
  max_retries: number;
  retry_backoff_initial_seconds: number;
  retry_backoff_max_seconds: number;
  attempt_timeout_seconds: number;
  max_response_payload_kbs: number;
  max_concurrent_deliveries: number;
  consecutive_failures: number;
  last_success_at?: string;
  last_failure_at?: string;
  config_hash: string;
  created_at: string;
  updated_at: string;
}

export interface DeliveryBody {
  id: string;
  webhook_id: string;
  endpoint_id: string;
  event: string;
  job_id: string | null;
  status: string;
  attempt_count: number;
  last_status_code: number | null;
  next_attempt_at: string | null;
  redelivery_of: string | null;
  created_at: string;
  completed_at: string | null;
  attempts: Array<{ attempt: number; status_code: number | null; outcome: string; error: string | null; latency_ms: number; response_excerpt: string | null }>;
}

export interface DeliveryList {
  deliveries: DeliveryBody[];
  count: number;
  total_count: number;
  limit: number;
  offset: number;
}

let names = 0;

/** Registers an endpoint that delivers to `receiver` at `path` and teaches the receiver its secret. */
export async function createEndpoint(gw: TestGateway, receiver: WebhookReceiver, path: string, fields: Record<string, unknown> = {}): Promise<EndpointBody> {
  const response = await gw.admin("/api/webhooks", {
    method: "POST",
    json: { name: `endpoint-${++names}`, url: `${receiver.url}${path}`, allow_private_network: true, ...fields },
  });
  if (response.status !== 201) throw new Error(`endpoint creation answered ${response.status}: ${await response.text()}`);
  const { endpoint, secret } = (await response.json()) as { endpoint: EndpointBody; secret: string };
  receiver.secrets.set(path, secret);
  return endpoint;
}

export async function deliveriesOf(gw: TestGateway, query = ""): Promise<DeliveryList> {
  return (await (await gw.admin(`/api/webhooks/deliveries${query}`)).json()) as DeliveryList;
}

/**
 * Polls the history (as the dashboard would) until `accept` holds; fails at once when the
 * receiver refused a listed delivery's signature, which no amount of waiting mends.
 */
export async function historyUntil(gw: TestGateway, query: string, accept: (list: DeliveryList) => boolean): Promise<DeliveryList> {
  for (;;) {
    const list = await deliveriesOf(gw, query);
    if (accept(list)) return list;
    const refused = list.deliveries.find((delivery) => delivery.attempts.some((attempt) => attempt.status_code === 401 && attempt.response_excerpt === SIGNATURE_REFUSED));
    if (refused) throw new Error(`the webhook receiver refused the signature of delivery ${refused.id} (${refused.event})`);
    await Bun.sleep(5);
  }
}

/** Name resolution the test controls: names map to addresses, anything else does not resolve. */
export function fakeDns(records: Record<string, string[]> = {}) {
  const table = new Map(Object.entries(records));
  return {
    table,
    resolve: async (hostname: string) => {
      const addresses = table.get(hostname);
      if (!addresses) throw new Error(`getaddrinfo ENOTFOUND ${hostname}`);
      return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }) as const);
    },
  };
}
