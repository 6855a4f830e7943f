import { Elysia } from "elysia";
import type { ActorKind, ActorMachines } from "../../actors/machines";
import type { ActorRecords } from "./actor-records";
import { describeMachine } from "./machine-description";
import { ActorEventsQuery, ActorListQuery, ActorParams, MachineParams } from "./schemas";
import type { TransitionFeed } from "./transition-feed";

interface RouteDeps {
  machines: ActorMachines;
  records: ActorRecords;
  feed: TransitionFeed;
}

/** /api/actors: the machines as data, the instances, their histories and a live stream of transitions. */
export const lifecycleRoutes = ({ machines, records, feed }: RouteDeps) =>
  new Elysia({ name: "lifecycles", prefix: "/api/actors" })
    .get("/", ({ query }) => records.list(query), { query: ActorListQuery })
    .get("/counts", () => records.counts())
    .get("/events", ({ query }) => feed.stream(query), { query: ActorEventsQuery })
    .get("/machines", () => ({ machines: Object.entries(machines).map(([kind, machine]) => ({ kind, ...describeMachine(machine) })) }))
    .get("/machines/:kind", ({ params }) => ({ kind: params.kind, ...describeMachine(machines[params.kind as ActorKind]) }), { params: MachineParams })
    .get("/:kind/:id", ({ params }) => records.find(params.kind, params.id), { params: ActorParams });
