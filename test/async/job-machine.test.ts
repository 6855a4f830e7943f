import { describe, expect, test } from "bun:test";
import { type AnyActorRef, createActor, fromPromise, type SnapshotFrom } from "xstate";
import { type AsyncJobInput, asyncJobMachine, type JobRun, type StoredResponse } from "../../actors/async-job";
import { TestClock } from "../support/test-clock";

function fakes(clock: TestClock, response: StoredResponse) {
  const calls = { runs: 0, notified: 0 };
  const machine = asyncJobMachine.provide({
    actors: {
      acquireWorker: fromPromise(async () => ({ at: clock.now() })),
      runJob: fromPromise(async () => {
        calls.runs++;
        return { response, finishedAt: clock.now() };
      }),
      notifyWebhooks: fromPromise(async () => {
        calls.notified++;
      }),
    },
  });
  return { machine, calls };
}

const input = (clock: TestClock): AsyncJobInput => ({
  id: "job-1",
  route: "chat/completions",
  requestType: "chat.completion",
  createdAt: clock.now(),
  resultTtlSeconds: 60,
  resultUrl: "http://gateway/v1/async/chat/completions/job-1",
  sealedRequest: "sealed",
});

function reaches(actor: AnyActorRef, value: object | string): Promise<SnapshotFrom<typeof asyncJobMachine>> {
  return new Promise((resolve) => {
    const check = (snapshot: SnapshotFrom<typeof asyncJobMachine>) => snapshot.matches(value as never) && resolve(snapshot);
    check(actor.getSnapshot());
    const subscription = actor.subscribe((snapshot) => {
      if (check(snapshot)) subscription.unsubscribe();
    });
  });
}

const ok: StoredResponse = { status: 200, contentType: "application/json", body: { json: { answer: 42 } } };
const rejected: StoredResponse = { status: 400, contentType: "application/json", body: { json: { error: { message: "bad" } } } };

describe("async-job machine", () => {
  test("a notification that fails is tried again, 1 s then 2 s later, and the result is kept meanwhile", async () => {
    const clock = new TestClock();
    let failuresLeft = 2;
    let attempts = 0;
    const machine = fakes(clock, ok).machine.provide({
      actors: {
        notifyWebhooks: fromPromise(async () => {
          attempts++;
          if (failuresLeft-- > 0) throw new Error("database out of reach");
        }),
      },
    });
    const actor = createActor(machine, { input: input(clock), clock }).start();
    await reaches(actor, { completed: "notifyWaiting" });
    expect(attempts).toBe(1);
    clock.increment(999);
    expect(attempts).toBe(1);
    clock.increment(1);
    await reaches(actor, { completed: "notifyWaiting" });
    expect(attempts).toBe(2);
    clock.increment(2_000);
    const retained = await reaches(actor, { completed: "retained" });
    expect(attempts).toBe(3);
    expect(retained.context.response).toEqual(ok);
  });

  test("restored while waiting to notify again (a restart during a database outage), it notifies once the wait is over and still expires on time", async () => {
    const clock = new TestClock();
    const failing = fakes(clock, ok).machine.provide({ actors: { notifyWebhooks: fromPromise(async () => Promise.reject(new Error("database out of reach"))) } });
    const before = createActor(failing, { input: input(clock), clock }).start();
    const waiting = await reaches(before, { completed: "notifyWaiting" });
    const persisted = JSON.parse(JSON.stringify(before.getPersistedSnapshot()));
    before.stop();

    const { machine, calls } = fakes(clock, ok);
    const restored = createActor(machine, { snapshot: persisted, input: input(clock), clock }).start();
    restored.send({ type: "rehydrated", at: clock.now() });
    // The timers a snapshot cannot carry are armed again: the retry after 1 s and the expiry.
    expect(clock.pendingDelays().toSorted((a, b) => a - b)).toEqual([1_000, waiting.context.expiresAt - clock.now()]);
    clock.increment(1_000);
    await reaches(restored, { completed: "retained" });
    expect(calls.notified).toBe(1);
    clock.increment(waiting.context.expiresAt - clock.now());
    expect(restored.getSnapshot().value).toBe("expired");
  });

  test("restored while notifying, long after it completed, it still expires when its result was due to", async () => {
    const clock = new TestClock();
    const hanging = fakes(clock, ok).machine.provide({ actors: { notifyWebhooks: fromPromise<void, { jobId: string }>(() => new Promise(() => undefined)) } });
    const before = createActor(hanging, { input: input(clock), clock }).start();
    const notifying = await reaches(before, { completed: "notifying" });
    const persisted = JSON.parse(JSON.stringify(before.getPersistedSnapshot()));
    before.stop();

    clock.increment(30_000);
    const { machine, calls } = fakes(clock, ok);
    const restored = createActor(machine, { snapshot: persisted, input: input(clock), clock }).start();
    restored.send({ type: "rehydrated", at: clock.now() });
    await reaches(restored, { completed: "retained" });
    expect(calls.notified).toBe(1);
    clock.increment(notifying.context.expiresAt - clock.now());
    expect(restored.getSnapshot().value).toBe("expired");
  });

  test("notifications that keep failing stop when the result expires", async () => {
    const clock = new TestClock();
    const machine = fakes(clock, ok).machine.provide({ actors: { notifyWebhooks: fromPromise(async () => Promise.reject(new Error("database out of reach"))) } });
    const actor = createActor(machine, { input: input(clock), clock }).start();
    await reaches(actor, { completed: "notifyWaiting" });
    let waited = 0;
    while (actor.getSnapshot().status === "active" && waited < 120_000) {
      clock.increment(1_000);
      waited += 1_000;
      // The failed attempt settles in later microtasks; only then does the next wait start.
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(actor.getSnapshot().value).toBe("expired");
    // The ttl counted from completion, not again from each failed attempt.
    expect(waited).toBe(60_000);
  });

  test("pending -> processing -> completed, notified once, expired after the ttl counted from completion", async () => {
    const clock = new TestClock();
    const { machine, calls } = fakes(clock, ok);
    const actor = createActor(machine, { input: input(clock), clock }).start();
    const retained = await reaches(actor, { completed: "retained" });
    expect(retained.context.response).toEqual(ok);
    expect(retained.context.sealedRequest).toBeUndefined();
    expect(retained.context.expiresAt).toBe(retained.context.completedAt! + 60_000);
    clock.increment(59_999);
    expect(actor.getSnapshot().matches({ completed: "retained" })).toBe(true);
    clock.increment(1);
    expect(actor.getSnapshot().value).toBe("expired");
    expect(calls).toEqual({ runs: 1, notified: 1 });
  });

  test("an error status fails the job and keeps the error", async () => {
    const clock = new TestClock();
    const { machine } = fakes(clock, rejected);
    const actor = createActor(machine, { input: input(clock), clock }).start();
    const failed = await reaches(actor, { failed: "retained" });
    expect(failed.context.response?.status).toBe(400);
  });

  test("restored while processing it runs again; restored while retained it keeps its expiry", async () => {
    const clock = new TestClock();
    const stuck = asyncJobMachine.provide({
      actors: { acquireWorker: fromPromise(async () => ({ at: clock.now() })), runJob: fromPromise<JobRun, { jobId: string; sealedRequest: string }>(() => new Promise(() => undefined)) },
    });
    const before = createActor(stuck, { input: input(clock), clock }).start();
    await reaches(before, "processing");
    const persisted = JSON.parse(JSON.stringify(before.getPersistedSnapshot()));
    before.stop();

    const { machine, calls } = fakes(clock, ok);
    const restored = createActor(machine, { snapshot: persisted, input: input(clock), clock }).start();
    const retained = await reaches(restored, { completed: "retained" });
    expect(calls).toEqual({ runs: 1, notified: 1 });

    clock.increment(30_000);
    const again = createActor(machine, { snapshot: JSON.parse(JSON.stringify(restored.getPersistedSnapshot())), input: input(clock), clock }).start();
    restored.stop();
    again.send({ type: "rehydrated", at: clock.now() });
    expect(clock.pendingDelays()).toContain(retained.context.expiresAt - clock.now());
    clock.increment(30_000);
    expect(again.getSnapshot().value).toBe("expired");
    expect(calls.notified).toBe(1);
  });
});
