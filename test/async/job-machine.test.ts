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
