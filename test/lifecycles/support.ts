import { expect } from "bun:test";
import type { TestGateway } from "../support/gateway";

export interface TransitionBody {
  seq: number;
  kind: string;
  id: string;
  from: unknown;
  from_path: string | null;
  event: string;
  to: unknown;
  to_path: string;
  at: string;
  node: string;
}

export interface ActorBody {
  kind: string;
  id: string;
  state: unknown;
  state_path: string;
  status: "active" | "done" | "error" | "stopped";
  node: string;
  created_at: string;
  updated_at: string;
  ended_at: string | null;
  next_timer_at: string | null;
  lease_until: string | null;
}

export interface ActorDetail extends ActorBody {
  context: Record<string, unknown> | null;
  transitions: TransitionBody[];
}

export interface ActorList {
  actors: ActorBody[];
  count: number;
  total_count: number;
  limit: number;
  offset: number;
}

export async function actorDetail(gw: TestGateway, kind: string, id: string): Promise<ActorDetail> {
  const response = await gw.admin(`/api/actors/${kind}/${encodeURIComponent(id)}`);
  expect(response.status).toBe(200);
  return (await response.json()) as ActorDetail;
}

export async function actorList(gw: TestGateway, query = ""): Promise<ActorList> {
  const response = await gw.admin(`/api/actors${query}`);
  expect(response.status).toBe(200);
  return (await response.json()) as ActorList;
}

/** Polls an actor's detail until `accept` holds (its last transitions land after the answer that caused them). */
export async function actorUntil(gw: TestGateway, kind: string, id: string, accept: (actor: ActorDetail) => boolean, timeoutMs = 5_000): Promise<ActorDetail> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const response = await gw.admin(`/api/actors/${kind}/${encodeURIComponent(id)}`);
    if (response.status === 200) {
      const actor = (await response.json()) as ActorDetail;
      if (accept(actor) || performance.now() > deadline) return actor;
    } else await response.arrayBuffer();
    if (performance.now() > deadline) throw new Error(`${kind} ${id} never reached the expected state`);
    await Bun.sleep(10);
  }
}

export const pathOf = (actor: ActorDetail) => actor.transitions.map((transition) => transition.to_path);
export const eventsOf = (actor: ActorDetail) => actor.transitions.map((transition) => transition.event);

/** Each transition starts where the one before it ended, the first from nowhere, and time never runs backwards. */
export function expectContinuous(actor: ActorDetail): void {
  const [first, ...rest] = actor.transitions;
  expect(first?.from).toBeNull();
  for (const [index, transition] of rest.entries()) expect(transition.from_path).toBe(actor.transitions[index]!.to_path);
  const times = actor.transitions.map((transition) => Date.parse(transition.at));
  expect(times).toEqual([...times].sort((a, b) => a - b));
  const seqs = actor.transitions.map((transition) => transition.seq);
  expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
}
