import { a2aTaskMachine } from "./a2a-task";
import { alertNotificationMachine } from "./alert-notification";
import { alertRuleMachine } from "./alert-rule";
import { asyncJobMachine } from "./async-job";
import { logSinkMachine } from "./log-sink";
import { perUserHeaderFlowMachine } from "./per-user-header-flow";
import { resumableStreamMachine } from "./resumable-stream";
import { webhookDeliveryMachine } from "./webhook-delivery";
import { webhookEndpointMachine } from "./webhook-endpoint";

/** Every kind of durable actor and the machine it runs: what the gateway runs and what GET /api/actors/machines describes. */
export const ACTOR_MACHINES = {
  "async-job": asyncJobMachine,
  "webhook-endpoint": webhookEndpointMachine,
  "webhook-delivery": webhookDeliveryMachine,
  "per-user-header-flow": perUserHeaderFlowMachine,
  "a2a-task": a2aTaskMachine,
  "log-sink": logSinkMachine,
  "alert-rule": alertRuleMachine,
  "alert-notification": alertNotificationMachine,
  stream: resumableStreamMachine,
};

export type ActorMachines = typeof ACTOR_MACHINES;
export type ActorKind = keyof ActorMachines;

export const ACTOR_KINDS = Object.keys(ACTOR_MACHINES) as ActorKind[];
