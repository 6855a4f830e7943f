import { awaitedIn, readableEvent } from "../lib/event-names";
import { formatTime, formatUntil } from "../lib/format";
import type { ActorRecord, DescribedMachine, DescribedState } from "./lifecycle-types";

/** One stop on an instance's path: the state, how it got there, and how long it stood there. */
export interface Step {
  state: string;
  from: string | null;
  event: string;
  at: string;
  /** Milliseconds it stood there; undefined for the last state, where it stands or ended. */
  stayedMs?: number;
  node: string;
}

/** The states an instance passed, in order, each with the time spent in it (until it left, or it ended). */
export function stepsOf(record: ActorRecord, machine: DescribedMachine): Step[] {
  const { transitions } = record;
  return transitions.map((transition, index) => {
    const leftAt = transitions[index + 1]?.at;
    return {
      state: transition.to_path,
      from: transition.from_path,
      event: readableEvent(transition.event, machine.root),
      at: transition.at,
      stayedMs: leftAt === undefined ? undefined : Date.parse(leftAt) - Date.parse(transition.at),
      node: transition.node,
    };
  });
}

/** "120 ms", "4.2 s", "3 min 5 s", "2 h 10 min", "3 days". */
export function formatStay(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
  if (minutes < 2880) return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
  return `${Math.round(minutes / 1440)} days`;
}

/** The state at `path` and its parents, innermost first. */
function statesAlong(machine: DescribedMachine, path: string): DescribedState[] {
  const along: DescribedState[] = [];
  let state: DescribedState | undefined = machine.root;
  for (const key of path.split(",")[0]!.split(".")) {
    state = state?.states[key];
    if (state) along.unshift(state);
  }
  return along;
}

function stayOf(step: Step, record: ActorRecord): string {
  if (step.stayedMs !== undefined) return `for ${formatStay(step.stayedMs)}`;
  return record.status === "active" ? `for ${formatStay(Date.now() - Date.parse(step.at))} so far` : "where it ended";
}

const joined = (items: string[]) => items.join(", ");

/** What a running instance waits for next: its work and who runs it, its next timer, the events it takes. */
function WaitingFor({ record, machine }: { record: ActorRecord; machine: DescribedMachine }) {
  if (record.status !== "active") {
    return (
      <p>
        Ended{record.ended_at ? ` ${formatTime(record.ended_at)}` : ""} in <strong>{record.state_path}</strong> ({record.status}): it waits for nothing more.
      </p>
    );
  }
  const awaited = awaitedIn(statesAlong(machine, record.state_path));
  return (
    <ul class="waiting-for" aria-label="Waiting for">
      {awaited.work.length > 0 && <li>Work running: {joined(awaited.work)}</li>}
      {awaited.timers.length > 0 && (
        <li>
          Timer: {joined(awaited.timers)}
          {record.next_timer_at ? `, due ${formatTime(record.next_timer_at)} (${formatUntil(record.next_timer_at)})` : ""}
        </li>
      )}
      {awaited.events.length > 0 && <li>Or an event: {joined(awaited.events)}</li>}
      <li>
        Held by node {record.node || "none"}
        {record.lease_until ? `, its lease until ${formatTime(record.lease_until)}` : ""}
      </li>
    </ul>
  );
}

/** One instance: what it waits for next, and the path it took with the time spent in each state. */
export function InstanceCard({ record, machine }: { record: ActorRecord; machine: DescribedMachine }) {
  const steps = stepsOf(record, machine);
  return (
    <section class="card" aria-label={`Instance ${record.id}`}>
      <h2>
        {record.id} <span class="badge badge-neutral">{record.state_path}</span>
      </h2>
      <h3>Waiting for</h3>
      <WaitingFor record={record} machine={machine} />
      <h3>Path</h3>
      <ol class="timeline" aria-label="Path">
        {steps.map((step, index) => (
          <li key={index}>
            <strong>{step.state}</strong> <span class="stay">{stayOf(step, record)}</span>{" "}
            <span class="muted">
              {step.event}
              {step.from ? ` (from ${step.from})` : ""}
            </span>{" "}
            <span class="muted small">
              {formatTime(step.at)} · {step.node}
            </span>
          </li>
        ))}
      </ol>
    </section>
  );
}
