import { type Actor, type AnyStateMachine, createActor, type EventFrom, type InputFrom, type InspectionEvent, type Snapshot, type SnapshotFrom, type StateValue } from "xstate";
import { FailureStreak } from "../../src/db/failure-streak";
import type { ActorSignal } from "../../src/db/schema";
import { type Clock, type TimerWatch, watchTimers } from "./clock";
import type { ActorSnapshotStore, Write } from "./snapshot-store";

/**
 * Sent to every actor restored from the database: it tells the machine the time, so a state
 * with a timer re-arms it for what is left (xstate does not persist scheduled events).
 */
export interface Rehydrated {
  type: "rehydrated";
  at: number;
}

export interface DurableActorsOptions<TMachine extends AnyStateMachine> {
  kind: string;
  machine: TMachine;
  store: ActorSnapshotStore;
  clock: Clock;
  /** Rows written in the same batch as each snapshot, e.g. a history row mirroring the state. */
  mirror?: (id: string, snapshot: SnapshotFrom<TMachine>, at: Date) => Write[];
  /** Told once a snapshot (and its mirror) is committed: what may be shown as done from then on. */
  committed?: (id: string, snapshot: SnapshotFrom<TMachine>) => void;
  /** How often this node looks for signals other nodes left for its actors; never when unset. */
  signalCheckMs?: number;
}

/** A signal no node took within this long is for an actor that no longer exists. */
const SIGNAL_MAX_AGE_MS = 3_600_000;

type AnyActor = Actor<AnyStateMachine>;
type ActorStart = { id: string } & ({ input: unknown } | { snapshot: Snapshot<unknown> });

/** What the transition history needs of one live actor: the state last written, the event being processed, its timers. */
interface Trail {
  value: StateValue | null;
  event: string;
  timers: TimerWatch;
}

const INIT_EVENT = "xstate.init";

/**
 * The live actors of one kind. Every transition's persisted snapshot is written to libSQL, in
 * order, through the store's group commit; a finished actor's row is removed; `resume`
 * restarts every actor left in the database, whose invoked promises (a request, an attempt)
 * start again. An event for an actor another node runs travels as a signal through the database.
 */
export class DurableActors<TMachine extends AnyStateMachine> {
  private readonly live = new Map<string, AnyActor>();
  /** What was last written per actor: a transition that changes nothing persisted is not written again. */
  private readonly lastWritten = new Map<string, string>();
  private leases?: ReturnType<typeof setInterval>;
  private stopListening?: () => void;
  private signals?: ReturnType<typeof setInterval>;
  /** Actors that failed in this process: their snapshots wait for the next start, not the next claim. */
  private readonly failed = new Set<string>();
  /** Discarded actors whose rows are not removed yet: a claim meanwhile must not restore them. */
  private readonly removing = new Set<string>();
  private readonly trails = new Map<string, Trail>();

  constructor(private readonly options: DurableActorsOptions<TMachine>) {}

  get size(): number {
    return this.live.size;
  }

  /** The live actors, for a caller that needs to find some by their context. */
  entries(): IterableIterator<[string, Actor<TMachine>]> {
    return this.live.entries() as IterableIterator<[string, Actor<TMachine>]>;
  }

  get(id: string): Actor<TMachine> | undefined {
    return this.live.get(id) as Actor<TMachine> | undefined;
  }

  /** Creates the actor, persists its first snapshot (with `alongside`, in the same transaction), then starts it. */
  async spawn(id: string, input: InputFrom<TMachine>, alongside: Write[] = []): Promise<Actor<TMachine>> {
    const actor = this.create({ id, input });
    // Live from here on, so a claim running meanwhile does not restore it a second time.
    this.live.set(id, actor);
    try {
      await this.persist(id, actor.getSnapshot(), actor.getPersistedSnapshot(), alongside);
    } catch (error) {
      this.live.delete(id);
      this.lastWritten.delete(id);
      this.trails.delete(id);
      throw error;
    }
    this.run(id, actor);
    // Awaited only when there is one: a first state without a timer moves on at once, and the caller sees its snapshot as it is now.
    const firstTimer = this.recordFirstTimer(id);
    if (firstTimer) await firstTimer;
    return actor as Actor<TMachine>;
  }

  /**
   * Restarts every actor of this kind this node holds or can claim in the database; returns how
   * many. From the first call on, the node renews its leases and takes over actors whose node
   * stopped renewing, every third of a lease.
   */
  async resume(): Promise<number> {
    this.leases ??= this.keepLeases();
    this.signals ??= this.takeSignals();
    let resumed = 0;
    for (const row of await this.options.store.claim(this.options.kind)) {
      if (this.live.has(row.id) || this.failed.has(row.id) || this.removing.has(row.id)) continue;
      try {
        const actor = this.create({ id: row.id, snapshot: row.snapshot as Snapshot<unknown> });
        this.lastWritten.set(row.id, JSON.stringify(row.snapshot));
        this.trails.get(row.id)!.value = (row.snapshot as { value?: StateValue }).value ?? null;
        this.run(row.id, actor);
        actor.send({ type: "rehydrated", at: this.options.clock.now() } satisfies Rehydrated);
        resumed++;
      } catch (error) {
        this.trails.delete(row.id);
        this.failed.add(row.id);
        console.error(`${this.options.kind} ${row.id} could not be restored; its snapshot is kept`, error);
      }
    }
    return resumed;
  }

  /** Stops one actor and deletes its snapshot: it will not resume. */
  async discard(id: string): Promise<void> {
    const { store, kind, clock } = this.options;
    const running = this.live.get(id)?.getSnapshot();
    const last = running?.status === "active" ? (running.value as StateValue) : undefined;
    this.live.get(id)?.stop();
    this.live.delete(id);
    this.lastWritten.delete(id);
    this.trails.delete(id);
    this.removing.add(id);
    try {
      await store.commit([store.remove(kind, id), ...store.transitions.ended(kind, id, "stopped", "discard", new Date(clock.now()), last)]);
    } finally {
      this.removing.delete(id);
    }
  }

  /**
   * Sends `signal` to the actor, here if it runs here, else through the database to the node
   * that runs it (or claims it next). `{ type: "discard" }` discards it; any other signal is an
   * event for its machine.
   */
  async signal(id: string, signal: ActorSignal): Promise<void> {
    if (this.live.has(id)) return this.deliver(id, signal);
    await this.options.store.postSignal(this.options.kind, id, signal);
  }

  /** Stops every actor; their last snapshots stay, handed back, so the next node to start (this one again, or another) resumes them. */
  async stop(): Promise<void> {
    clearInterval(this.leases);
    clearInterval(this.signals);
    this.stopListening?.();
    this.leases = undefined;
    this.signals = undefined;
    for (const actor of this.live.values()) actor.stop();
    this.live.clear();
    this.lastWritten.clear();
    this.trails.clear();
    await this.options.store.idle();
    await this.options.store.release(this.options.kind);
  }

  private keepLeases(): ReturnType<typeof setInterval> {
    const { store, kind } = this.options;
    // A claim renews this node's leases and takes over the rows whose leases ran out (or were freed).
    const failures = new FailureStreak(`${kind}: renewing and claiming leases`);
    const claim = () => void this.resume().then(() => failures.succeeded(), (error) => failures.failed(error));
    this.stopListening = store.onLeasesFreed(claim);
    const timer = setInterval(claim, store.lease.durationMs / 3);
    timer.unref?.();
    return timer;
  }

  private async deliver(id: string, signal: ActorSignal): Promise<void> {
    if (signal.type === "discard") return this.discard(id);
    this.live.get(id)?.send(signal as EventFrom<TMachine>);
  }

  private takeSignals(): ReturnType<typeof setInterval> | undefined {
    const { store, kind, signalCheckMs } = this.options;
    if (!signalCheckMs) return undefined;
    const failures = new FailureStreak(`${kind}: taking signals from other nodes`);
    let checking = false;
    const timer = setInterval(async () => {
      if (checking || this.live.size === 0) return;
      checking = true;
      try {
        for (const { id, signal } of await store.takeSignals(kind, (candidate) => this.live.has(candidate), SIGNAL_MAX_AGE_MS)) await this.deliver(id, signal);
        failures.succeeded();
      } catch (error) {
        failures.failed(error);
      } finally {
        checking = false;
      }
    }, signalCheckMs);
    timer.unref?.();
    return timer;
  }

  /** The actor, watched: its timers (for the next one due) and the event each transition follows, and Stately's inspector when attached. */
  private create(start: ActorStart): AnyActor {
    const timers = watchTimers(this.options.clock);
    const trail: Trail = { value: null, event: INIT_EVENT, timers };
    this.trails.set(start.id, trail);
    const inspector = this.options.store.inspect;
    const inspect = (inspection: InspectionEvent) => {
      if (inspection.type === "@xstate.microstep" && inspection.actorRef.sessionId === inspection.rootId) trail.event = inspection.event.type;
      inspector?.next?.(inspection);
    };
    return createActor(this.options.machine as AnyStateMachine, { ...start, clock: timers, inspect });
  }

  private run(id: string, actor: AnyActor): void {
    this.live.set(id, actor);
    actor.subscribe({
      next: (snapshot) => {
        // Nobody waits on a transition's write: it waits out an outage of the database.
        this.persist(id, snapshot, actor.getPersistedSnapshot(), [], { retry: true }).catch((error) => console.error(`${this.options.kind} ${id}: snapshot write failed`, error));
      },
      error: (error) => {
        const { kind, store, clock } = this.options;
        console.error(`${kind} ${id} failed; its last snapshot is kept`, error);
        this.live.delete(id);
        this.failed.add(id);
        const last = this.trails.get(id)?.value ?? undefined;
        this.trails.delete(id);
        store.commit(store.transitions.ended(kind, id, "error", "xstate.error", new Date(clock.now()), last), { retry: true }).catch((failure) => console.error(`${kind} ${id}: recording the failure failed`, failure));
      },
    });
    actor.start();
  }

  private async persist(id: string, snapshot: SnapshotFrom<AnyStateMachine>, persisted: unknown, alongside: Write[] = [], options: { retry?: boolean } = {}): Promise<void> {
    const { kind, store, mirror, clock } = this.options;
    const finished = snapshot.status === "done";
    const serialized = JSON.stringify(persisted);
    if (!finished && this.lastWritten.get(id) === serialized) return;
    if (finished) this.lastWritten.delete(id);
    else this.lastWritten.set(id, serialized);
    const at = new Date(clock.now());
    const mirrored = mirror?.(id, snapshot as SnapshotFrom<TMachine>, at) ?? [];
    const own = finished ? store.remove(kind, id) : store.save(kind, id, snapshot.value, persisted, at);
    const transition = this.transitionOf(id, snapshot, at);
    try {
      await store.commit([...alongside, own, ...mirrored, ...transition], options);
      this.options.committed?.(id, snapshot as SnapshotFrom<TMachine>);
    } catch (error) {
      // Not written: the actor's next transition writes its state whole, even if unchanged.
      if (this.lastWritten.get(id) === serialized) this.lastWritten.delete(id);
      throw error;
    } finally {
      // A finished actor stays live until its row is gone: until then the row may still hold an
      // earlier state (its last writes queue behind slower ones), which a lookup would show and a
      // claim would restore and run again.
      if (finished) {
        this.live.delete(id);
        this.trails.delete(id);
      }
    }
  }

  /** A first state with a timer (an expiry) arms it only once started, after its first write. */
  private recordFirstTimer(id: string): Promise<void> | undefined {
    const due = this.trails.get(id)?.timers.nextDue();
    if (due === undefined || !this.options.store.transitions.enabled) return undefined;
    const { store, kind } = this.options;
    return store.commit(store.transitions.timer(kind, id, due), { retry: true });
  }

  /** The history rows of a snapshot that entered another state; none when the state stayed. */
  private transitionOf(id: string, snapshot: SnapshotFrom<AnyStateMachine>, at: Date) {
    const trail = this.trails.get(id);
    if (!trail) return [];
    const to = snapshot.value as StateValue;
    if (trail.value !== null && JSON.stringify(trail.value) === JSON.stringify(to)) return [];
    const from = trail.value;
    trail.value = to;
    const status = snapshot.status === "done" ? "done" : "active";
    return this.options.store.transitions.record({ kind: this.options.kind, id, from, event: trail.event, to, status, at, nextTimerAt: trail.timers.nextDue() });
  }
}
