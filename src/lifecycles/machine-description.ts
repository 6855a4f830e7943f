import type { AnyStateMachine, AnyStateNode } from "xstate";

/** An action, guard, delay or actor as the machine names it: its `setup` name, or `inline` for an anonymous function. */
type Named = string | { type?: unknown; name?: unknown } | ((...args: never[]) => unknown) | undefined;

function nameOf(item: Named): string {
  if (typeof item === "string") return item;
  if (item && typeof item === "object" && typeof item.type === "string") return item.type;
  if (typeof item === "function") {
    const typed = (item as { type?: unknown }).type;
    if (typeof typed === "string") return typed;
    return item.name || "inline";
  }
  return "inline";
}

/** A guard's fixed params (`{ state: "working" }`); params computed from the event are not data. */
function guardOf(guard: unknown) {
  if (guard === undefined) return undefined;
  const params = guard && typeof guard === "object" && "params" in guard ? (guard as { params: unknown }).params : undefined;
  return { name: nameOf(guard as Named), ...(params !== undefined && typeof params !== "function" ? { params } : {}) };
}

export interface TransitionDescription {
  /** The event type; "" for an eventless (`always`) transition. */
  event: string;
  trigger: "event" | "delayed" | "eventless";
  source: string;
  /** Ids of the target states; empty for a transition that only runs actions. */
  targets: string[];
  guard?: { name: string; params?: unknown };
  actions: string[];
  reenter: boolean;
  /** For a delayed transition: the delay in milliseconds, or the name of the delay that computes it. */
  delay?: number | string;
}

export interface StateDescription {
  id: string;
  key: string;
  type: "atomic" | "compound" | "parallel" | "final" | "history";
  /** Ids of the initial child state(s) of a compound state. */
  initial?: string[];
  entry: string[];
  exit: string[];
  invoke: Array<{ id: string; src: string }>;
  transitions: TransitionDescription[];
  states: Record<string, StateDescription>;
}

interface TransitionLike {
  eventType: string;
  source: AnyStateNode;
  target?: ReadonlyArray<AnyStateNode>;
  guard?: unknown;
  actions: readonly unknown[];
  reenter: boolean;
  delay?: unknown;
}

function describeTransition(transition: TransitionLike, trigger: TransitionDescription["trigger"]): TransitionDescription {
  const delay = transition.delay;
  return {
    event: transition.eventType,
    trigger,
    source: transition.source.id,
    targets: (transition.target ?? []).map((target) => target.id),
    ...(transition.guard === undefined ? {} : { guard: guardOf(transition.guard) }),
    actions: transition.actions.map((action) => nameOf(action as Named)),
    reenter: transition.reenter,
    ...(trigger === "delayed" ? { delay: typeof delay === "number" || typeof delay === "string" ? delay : "inline" } : {}),
  };
}

function describeState(node: AnyStateNode): StateDescription {
  const delayed = new Map(node.after.map((transition) => [transition.eventType, transition]));
  const transitions = [...node.transitions.values()].flat().map((transition) => {
    const after = delayed.get(transition.eventType);
    return after ? describeTransition(after as TransitionLike, "delayed") : describeTransition(transition as TransitionLike, "event");
  });
  for (const transition of node.always ?? []) transitions.push(describeTransition(transition as TransitionLike, "eventless"));
  const compound = node.type === "compound";
  return {
    id: node.id,
    key: node.key,
    type: node.type,
    ...(compound ? { initial: node.initial.target.map((target: AnyStateNode) => target.id) } : {}),
    entry: node.entry.map((action) => nameOf(action as Named)),
    exit: node.exit.map((action) => nameOf(action as Named)),
    invoke: node.invoke.map((invoked) => ({ id: invoked.id, src: nameOf(invoked.src as Named) })),
    transitions,
    states: Object.fromEntries(Object.entries(node.states as Record<string, AnyStateNode>).map(([key, child]) => [key, describeState(child)])),
  };
}

/** A machine as data, read from xstate's own definition objects: what runs is what is described. */
export function describeMachine(machine: AnyStateMachine): { id: string; root: StateDescription } {
  return { id: machine.id, root: describeState(machine.root) };
}
