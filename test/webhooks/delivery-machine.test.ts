import { describe, expect, test } from "bun:test";
import { type AnyActorRef, createActor, fromPromise, type SnapshotFrom } from "xstate";
import { type AttemptInput, type AttemptResult, webhookDeliveryMachine } from "../../actors/webhook-delivery";
import { TestClock } from "../support/test-clock";

type Outcome = Omit<AttemptResult, "finishedAt">;

/** The machine with scripted attempts: each answers with the next outcome, stamped with the clock. */
function scripted(clock: TestClock, outcomes: Outcome[]) {
  const attempts: AttemptInput[] = [];
  const machine = webhookDeliveryMachine.provide({
    actors: {
      acquireSlot: fromPromise<void, AttemptInput>(async () => undefined),
      attempt: fromPromise(async ({ input }: { input: AttemptInput }) => {
        attempts.push(input);
        return { ...outcomes.shift()!, finishedAt: clock.now() };
      }),
    },
  });
  return { machine, attempts };
}

const policy = { maxRetries: 4, backoffInitialMs: 30_000, backoffMaxMs: 100_000 };
const input = (clock: TestClock) => ({ deliveryId: "d1", endpointId: "e1", createdAt: clock.now(), ...policy });

/** Resolves when the actor reaches a state matching `value`. */
function reaches(actor: AnyActorRef, value: string): Promise<SnapshotFrom<typeof webhookDeliveryMachine>> {
  return new Promise((resolve) => {
    const check = (snapshot: SnapshotFrom<typeof webhookDeliveryMachine>) => snapshot.matches(value as never) && resolve(snapshot);
    check(actor.getSnapshot());
    const subscription = actor.subscribe((snapshot) => {
      if (check(snapshot)) subscription.unsubscribe();
    });
  });
}

const retryable = (statusCode: number): Outcome => ({ outcome: "retryable", statusCode });
const permanent = (statusCode: number): Outcome => ({ outcome: "permanent", statusCode });

describe("webhook-delivery machine", () => {
  test("retries wait initial * 2^n, capped at the maximum, then deliver", async () => {
    const clock = new TestClock();
    const { machine, attempts } = scripted(clock, [retryable(500), retryable(503), retryable(429), retryable(408), { outcome: "delivered", statusCode: 200 }]);
    const actor = createActor(machine, { input: input(clock), clock }).start();
    for (const delay of [30_000, 60_000, 100_000, 100_000]) {
      await reaches(actor, "waiting_retry");
      expect(actor.getSnapshot().context.nextAttemptAt! - clock.now()).toBe(delay);
      clock.increment(delay - 1);
      expect(actor.getSnapshot().value).toBe("waiting_retry");
      clock.increment(1);
    }
    const done = await reaches(actor, "delivered");
    expect(done.context.attempts).toBe(5);
    expect(attempts.map((attempt) => attempt.attempt)).toEqual([1, 2, 3, 4, 5]);
  });

  test("after max_retries retries it is exhausted", async () => {
    const clock = new TestClock();
    const { machine, attempts } = scripted(clock, [retryable(500), retryable(500), retryable(503)]);
    const actor = createActor(machine, { input: { ...input(clock), maxRetries: 2 }, clock }).start();
    for (const delay of [30_000, 60_000]) {
      await reaches(actor, "waiting_retry");
      clock.increment(delay);
    }
    const done = await reaches(actor, "exhausted");
    expect(done.status).toBe("done");
    expect(attempts).toHaveLength(3);
    // What the delivery's history row shows: every attempt counted, the last one's status.
    expect(done.context).toMatchObject({ attempts: 3, lastStatusCode: 503 });
  });

  test("a permanent failure (a 4xx other than 408 and 429) ends it at once", async () => {
    const clock = new TestClock();
    const { machine, attempts } = scripted(clock, [permanent(404)]);
    const actor = createActor(machine, { input: input(clock), clock }).start();
    const done = await reaches(actor, "failed");
    expect(done.context.lastStatusCode).toBe(404);
    expect(attempts).toHaveLength(1);
  });

  test("a slot that cannot be taken, or an attempt that breaks (the database away), ends it failed, saying why", async () => {
    for (const broken of ["acquireSlot", "attempt"] as const) {
      const clock = new TestClock();
      const machine = webhookDeliveryMachine.provide({
        actors: {
          acquireSlot: fromPromise<void, AttemptInput>(async () => {
            if (broken === "acquireSlot") throw new Error("database unavailable");
          }),
          attempt: fromPromise<AttemptResult, AttemptInput>(async () => {
            throw new Error("database unavailable");
          }),
        },
      });
      const actor = createActor(machine, { input: input(clock), clock }).start();
      const done = await reaches(actor, "failed");
      expect({ broken, status: done.status, lastError: done.context.lastError }).toEqual({ broken, status: "done", lastError: "Error: database unavailable" });
    }
  });

  test("restored while waiting, it re-arms the retry for the time that is left", async () => {
    const clock = new TestClock();
    const first = scripted(clock, [retryable(500)]);
    const before = createActor(first.machine, { input: input(clock), clock }).start();
    await reaches(before, "waiting_retry");
    clock.increment(10_000);
    const persisted = JSON.parse(JSON.stringify(before.getPersistedSnapshot()));
    before.stop();

    const second = scripted(clock, [{ outcome: "delivered", statusCode: 204 }]);
    const restored = createActor(second.machine, { snapshot: persisted, input: input(clock), clock }).start();
    restored.send({ type: "rehydrated", at: clock.now() });
    expect(clock.pendingDelays()).toContain(20_000);
    clock.increment(19_999);
    expect(second.attempts).toHaveLength(0);
    clock.increment(1);
    await reaches(restored, "delivered");
    expect(second.attempts.map((attempt) => attempt.attempt)).toEqual([2]);
  });
});
