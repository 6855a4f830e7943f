import type { ActorTransition, Machine, MachineState } from "../api/types";

/** A machine's state with what it invokes (GET /api/actors/machines describes both). */
export type DescribedState = MachineState & { invoke: Array<{ id: string; src: string }>; states: Record<string, DescribedState> };
export type DescribedMachine = Machine & { root: DescribedState };

/** GET /api/actors/{kind}/{id}: where one actor stands, who holds it, what timer it armed, and its transitions in order. */
export interface ActorRecord {
  kind: string;
  id: string;
  state_path: string;
  status: "active" | "done" | "error" | "stopped";
  /** The node holding its lease while it runs; the node of its last transition once it ended. */
  node: string;
  created_at: string;
  updated_at: string;
  ended_at: string | null;
  next_timer_at: string | null;
  lease_until: string | null;
  transitions: ActorTransition[];
}
