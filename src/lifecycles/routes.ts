import { Elysia } from "elysia";
import type { ActorKind, ActorMachines } from "../../actors/machines";
import type { ActorRecords } from "./actor-records";
import { describeMachine } from "./machine-description";
import { ActorEventsQuery, ActorListQuery, ActorParams, MachineParams } from "./schemas";
import type { TransitionFeed } from "./transition-feed";
import { eventStream, replies, sentReplies } from "../http/replies";
import { ActorCounts, ActorPage, ActorRecord, MachineDescription, MachineList } from "./replies";

interface RouteDeps {
  machines: ActorMachines;
  records: ActorRecords;
  feed: TransitionFeed;
}

/** /api/actors: the machines as data, the instances, their histories and a live stream of transitions. */
export const lifecycleRoutes = ({ machines, records, feed }: RouteDeps) =>
  new Elysia({ name: "lifecycles", prefix: "/api/actors" })
    .get("/", ({ query }) => records.list(query), { query: ActorListQuery, ...replies({ 200: ActorPage }, { summary: "List actors", description: "Every durable lifecycle's instances, most recently changed first." }) })
    .get("/counts", () => records.counts(), replies({ 200: ActorCounts }, { summary: "Count actors by state" }))
    .get("/events", ({ query }) => feed.stream(query), {
      query: ActorEventsQuery,
      ...sentReplies(
        { 200: eventStream("A `transition` event per transition committed from now on, by any node, its data a transition as GET /api/actors/{kind}/{id} lists them; comment lines keep the connection alive.") },
        { summary: "Follow actor transitions", description: "Server-sent events until the client leaves; `kind` and `id` narrow them to one machine or actor." },
      ),
    })
    .get("/machines", () => ({ machines: Object.entries(machines).map(([kind, machine]) => ({ kind, ...describeMachine(machine) })) }), replies({ 200: MachineList }, { summary: "List lifecycle machines" }))
    .get("/machines/:kind", ({ params }) => ({ kind: params.kind, ...describeMachine(machines[params.kind as ActorKind]) }), { params: MachineParams, ...replies({ 200: MachineDescription }, { summary: "Get a lifecycle machine" }) })
    .get("/:kind/:id", ({ params }) => records.find(params.kind, params.id), { params: ActorParams, ...replies({ 200: ActorRecord }, { summary: "Get an actor", description: "Where it stands, its context while it runs (redacted) and its transitions." }) });
