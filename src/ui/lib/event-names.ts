/** A machine's state as the lifecycle pages read it: the pieces of work it invokes, its transitions and child states. */
export interface NamedState {
  invoke?: Array<{ id: string; src: string }>;
  transitions: Array<{ event: string; trigger: string; delay?: number | string }>;
  states: Record<string, NamedState>;
}

const words = (name: string) =>
  name
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .replace(/[_\-.]+/g, " ")
    .trim()
    .toLowerCase();

/** What each piece of work the machines invoke is: while it runs, once it finished, once it failed. */
const WORK: Record<string, { awaited: string; done: string; failed: string }> = {
  acquireWorker: { awaited: "a free worker", done: "a worker took it", failed: "no worker could take it" },
  runJob: { awaited: "the upstream's answer", done: "upstream answered", failed: "the run failed" },
  notifyWebhooks: { awaited: "its webhooks to be notified", done: "webhooks notified", failed: "notifying webhooks failed" },
  acquireSlot: { awaited: "a free delivery slot", done: "a delivery slot was free", failed: "no delivery slot could be had" },
  attempt: { awaited: "the endpoint's answer", done: "delivery attempted", failed: "the attempt crashed" },
  verifyValues: { awaited: "the values to be checked", done: "values verified", failed: "values refused" },
};

/** The machines' named delays: what the timer is, and what its firing means. */
const TIMERS: Record<string, { timer: string; fired: string }> = {
  retryBackoff: { timer: "the retry timer", fired: "retry timer fired" },
  notifyRetry: { timer: "the notification retry timer", fired: "notification retry timer fired" },
  resultTtl: { timer: "the end of the result's retention", fired: "result's retention ended" },
  untilExpiry: { timer: "the flow's expiry", fired: "flow expired" },
  failingPeriodLeft: { timer: "the end of the failing period", fired: "failing period ended" },
};

/** The machines' own events, as what happened. */
const EVENTS: Record<string, string> = {
  cancel: "cancelled",
  rehydrated: "resumed after a restart",
  SUBMIT: "values submitted",
  EXPIRE: "expired",
  "attempt.failed": "an attempt failed",
  "attempt.succeeded": "an attempt succeeded",
  "delivery.failed": "a delivery failed",
  "status.seen": "upstream status seen",
  enable: "enabled",
  disable: "disabled",
};

/** A delay's name, or its length when xstate names it by milliseconds. */
const delayOf = (delay: string) => (/^\d+$/.test(delay) ? `${Number(delay) >= 1000 ? `${Number(delay) / 1000} s` : `${delay} ms`}` : words(delay));

const timerFired = (delay: string) => TIMERS[delay]?.fired ?? `${delayOf(delay)} timer fired`;

/** The piece of work a state of `root` invokes under this id (xstate's generated ids included). */
function invokedSource(root: NamedState | undefined, invokeId: string): string | undefined {
  if (!root) return undefined;
  const found = root.invoke?.find((invoked) => invoked.id === invokeId)?.src;
  return found ?? Object.values(root.states).reduce<string | undefined>((source, child) => source ?? invokedSource(child, invokeId), undefined);
}

function workEnded(invokeId: string, done: boolean, root: NamedState | undefined): string {
  const work = WORK[invokedSource(root, invokeId) ?? ""];
  if (work) return done ? work.done : work.failed;
  // Generated invoke ids are `<index>.<machine>.<state path>`; a named one is its name.
  const parts = invokeId.split(".");
  const what = /^\d+$/.test(parts[0]!) ? parts.slice(2).join(".") || parts[1]! : parts.join(".");
  return `work of ${words(what)} ${done ? "finished" : "failed"}`;
}

/**
 * A transition's event as a person reads it: what the invoked work or the timer did ("upstream
 * answered", "retry timer fired"), the machines' own events as what happened ("cancelled").
 * `root` (the machine's description) names the work behind xstate's generated invoke ids.
 */
export function readableEvent(event: string, root?: NamedState): string {
  const invoked = /^xstate\.(done|error)\.actor\.(.+)$/.exec(event);
  if (invoked) return workEnded(invoked[2]!, invoked[1] === "done", root);
  const delayed = /^xstate\.after\.([^.]+)/.exec(event);
  if (delayed) return timerFired(delayed[1]!);
  if (event === "xstate.init") return "started";
  const finalState = /^xstate\.done\.state\.(.+)$/.exec(event);
  if (finalState) return `${words(finalState[1]!.split(".").at(-1)!)} reached its end`;
  return EVENTS[event] ?? words(event.replace(/^xstate\./, ""));
}

/** A transition of the chart, labelled as its event reads. */
export function transitionLabel(transition: NamedState["transitions"][number], state: NamedState): string {
  if (transition.trigger === "delayed") return transition.delay === undefined ? "timer fired" : timerFired(String(transition.delay));
  if (transition.trigger === "eventless") return "at once";
  return readableEvent(transition.event, state);
}

/** What a state waits for: the work it runs, its timers, the events it takes. */
export interface Awaited {
  work: string[];
  timers: string[];
  events: string[];
}

/** What an instance standing in `state` (and so in its parents, `along`) waits for next. */
export function awaitedIn(along: NamedState[]): Awaited {
  const awaited: Awaited = { work: [], timers: [], events: [] };
  for (const state of along) {
    for (const invoked of state.invoke ?? []) awaited.work.push(WORK[invoked.src]?.awaited ?? `${words(invoked.src)} to finish`);
    for (const transition of state.transitions) {
      if (transition.trigger === "delayed") awaited.timers.push(TIMERS[String(transition.delay)]?.timer ?? `a ${delayOf(String(transition.delay))} timer`);
      else if (transition.trigger === "event" && !transition.event.startsWith("xstate.")) awaited.events.push(readableEvent(transition.event));
    }
  }
  return { work: [...new Set(awaited.work)], timers: [...new Set(awaited.timers)], events: [...new Set(awaited.events)] };
}
