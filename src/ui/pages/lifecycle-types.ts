import type { ActorDetail, Machine, MachineState } from "../api/types";

/** A machine's state with what it invokes (GET /api/actors/machines describes both). */
export type DescribedState = MachineState & { invoke: Array<{ id: string; src: string }>; states: Record<string, DescribedState> };
export type DescribedMachine = Machine & { root: DescribedState };

/** GET /api/actors/{kind}/{id}: where one actor stands, who holds it, what timer it armed, and its transitions in order. */
export type ActorRecord = ActorDetail;
