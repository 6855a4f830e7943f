import { Elysia } from "elysia";
import { principalOf } from "../access";
import { checkPrivateOptIn, type OutboundReach } from "../outbound/reach";
import type { DeliveryHistory, DeliveryView } from "./delivery-history";
import type { WebhookEndpoint, WebhookEndpointStore } from "./endpoint-store";
import { endpointView } from "./endpoint-view";
import { DeliveryHistoryQuery, IdParams, RecoverBody, WebhookEndpointCreate, WebhookEndpointUpdate } from "./schemas";
import { Deleted, replies } from "../http/replies";
import { DeliveryPage, EndpointWithSecret, RecoveryQueued, RedeliveryQueued, EndpointReply, WebhookDelivery, WebhookEndpointList } from "./replies";

/** What the routes ask of the webhook service beyond the stores. */
export interface WebhookOperations {
  createEndpoint(input: WebhookEndpointCreate): Promise<{ endpoint: WebhookEndpoint; secret: string }>;
  updateEndpoint(id: string, input: WebhookEndpointUpdate): Promise<WebhookEndpoint>;
  recover(id: string, since: string): Promise<{ queued: number; webhook_ids: string[] }>;
  sendTest(endpointId: string): Promise<DeliveryView>;
  redeliver(deliveryId: string): Promise<{ webhookId: string; deliveryId: string }>;
  removeEndpoint(id: string): Promise<void>;
}

interface RouteDeps {
  endpoints: WebhookEndpointStore;
  history: DeliveryHistory;
  webhooks: WebhookOperations;
  reach: OutboundReach;
}

/** Delivering to loopback or private addresses is the admin's to turn on (or anyone's, where the configuration allows it). */
function checkOptIn(request: Request, body: { allow_private_network?: boolean }, reach: OutboundReach): void {
  if (body.allow_private_network === true) checkPrivateOptIn(principalOf(request), reach, "allow_private_network");
}

/** /api/webhooks: endpoints (spec 2.6, 4.14), secret rotation, test deliveries, history and redelivery (4.15). */
export const webhookRoutes = ({ endpoints, history, webhooks, reach }: RouteDeps) =>
  new Elysia({ name: "webhooks", prefix: "/api/webhooks" })
    .get("/", async () => {
      const views = (await endpoints.withOutcomes(endpoints.list())).map((endpoint) => endpointView(endpoints, endpoint));
      return { webhooks: views, count: views.length };
    }, replies({ 200: WebhookEndpointList }, { summary: "List webhook endpoints", description: "Every endpoint with its lifecycle state and last outcomes; never a signing secret." }))
    .post(
      "/",
      async ({ body, set, request }) => {
        checkOptIn(request, body, reach);
        const { endpoint, secret } = await webhooks.createEndpoint(body);
        set.status = 201;
        return { endpoint: endpointView(endpoints, endpoint), secret };
      },
      { body: WebhookEndpointCreate, ...replies({ 201: EndpointWithSecret }, { summary: "Create a webhook endpoint", description: "The signing secret is in this reply only; rotate it to see a new one." }) },
    )
    .get("/deliveries", ({ query }) => history.list(query), { query: DeliveryHistoryQuery, ...replies({ 200: DeliveryPage }, { summary: "List webhook deliveries", description: "Deliveries to every endpoint, newest first, with their attempts." }) })
    .post(
      "/deliveries/:id/redeliver",
      async ({ params, set }) => {
        const queued = await webhooks.redeliver(params.id);
        set.status = 202;
        return { status: "queued", webhook_id: queued.webhookId, delivery_id: queued.deliveryId };
      },
      { params: IdParams, ...replies({ 202: RedeliveryQueued }, { summary: "Redeliver a webhook message", description: "Queues the delivery's message again, as a new delivery with the same webhook id." }) },
    )
    .get("/:id", async ({ params }) => endpointView(endpoints, (await endpoints.withOutcomes([endpoints.require(params.id)]))[0]!), { params: IdParams, ...replies({ 200: EndpointReply }, { summary: "Get a webhook endpoint" }) })
    .put(
      "/:id",
      async ({ params, body, request }) => {
        checkOptIn(request, body, reach);
        return endpointView(endpoints, await webhooks.updateEndpoint(params.id, body));
      },
      { params: IdParams, body: WebhookEndpointUpdate, ...replies({ 200: EndpointReply }, { summary: "Update a webhook endpoint" }) },
    )
    .delete(
      "/:id",
      async ({ params }) => {
        await webhooks.removeEndpoint(params.id);
        return { message: "Webhook endpoint deleted successfully" };
      },
      { params: IdParams, ...replies({ 200: Deleted }, { summary: "Delete a webhook endpoint" }) },
    )
    .post(
      "/:id/rotate-secret",
      async ({ params }) => {
        const { endpoint, secret } = await endpoints.rotateSecret(params.id);
        return { endpoint: endpointView(endpoints, endpoint), secret };
      },
      { params: IdParams, ...replies({ 200: EndpointWithSecret }, { summary: "Rotate a webhook endpoint's signing secret", description: "The new secret is in this reply only." }) },
    )
    .post("/:id/test", ({ params }) => webhooks.sendTest(params.id), { params: IdParams, ...replies({ 200: WebhookDelivery }, { summary: "Send a test webhook delivery", description: "Sends a `webhook.test` message to the endpoint and answers its delivery once settled." }) })
    .post(
      "/:id/recover",
      async ({ params, body, set }) => {
        const recovered = await webhooks.recover(params.id, body.since);
        set.status = 202;
        return recovered;
      },
      { params: IdParams, body: RecoverBody, ...replies({ 202: RecoveryQueued }, { summary: "Recover missed webhook messages", description: "Queues again every message to the endpoint since `since` that did not arrive." }) },
    )
    .get(
      "/:id/deliveries",
      ({ params, query }) => {
        endpoints.require(params.id);
        return history.list({ ...query, endpoint_id: params.id });
      },
      { params: IdParams, query: DeliveryHistoryQuery, ...replies({ 200: DeliveryPage }, { summary: "List a webhook endpoint's deliveries" }) },
    );

