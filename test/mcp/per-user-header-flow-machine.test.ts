import { describe, expect, test } from "bun:test";
import { type AnyStateMachine, createActor, fromPromise, waitFor } from "xstate";
import { type PerUserHeaderFlowInput, perUserHeaderFlowMachine, type VerifyInput } from "../../actors/per-user-header-flow";
import { TestClock } from "../support/test-clock";

const TTL = 60_000;

function flow(verify: (input: VerifyInput) => Promise<void>, clock = new TestClock()) {
  const input: PerUserHeaderFlowInput = { flowId: "flow-1", mode: "virtual_key", identity: "vk-1", mcpClientId: "client-1", createdAt: clock.now(), expiresAt: clock.now() + TTL };
  const machine = perUserHeaderFlowMachine.provide({ actors: { verifyValues: fromPromise<void, VerifyInput>(({ input }) => verify(input)) } });
  return { actor: createActor(machine, { input, clock }).start(), clock, machine, input };
}

const settled = (actor: ReturnType<typeof flow>["actor"]) => waitFor(actor, (snapshot) => snapshot.value !== "verifying");

describe("per-user-header-flow machine", () => {
  test("pending expires when its time is up", async () => {
    const { actor, clock } = flow(async () => undefined);
    await clock.timerSet(TTL);
    clock.increment(TTL);
    expect(actor.getSnapshot().value).toBe("expired");
    expect(actor.getSnapshot().status).toBe("done");
  });

  test("pending -> verifying -> consumed when the values verify; the verifier gets the flow, never the values", async () => {
    const seen: VerifyInput[] = [];
    const { actor, clock } = flow(async (input) => void seen.push(input));
    actor.send({ type: "SUBMIT", at: clock.now() });
    expect(actor.getSnapshot().value).toBe("verifying");
    expect((await settled(actor)).value).toBe("consumed");
    expect(seen).toEqual([{ flowId: "flow-1", mcpClientId: "client-1" }]);
  });

  test("refused values return to pending with the reason, and the timer counts what is left", async () => {
    const { actor, clock } = flow(async () => {
      throw new Error("upstream said 401");
    });
    clock.increment(20_000);
    actor.send({ type: "SUBMIT", at: clock.now() });
    const back = await settled(actor);
    expect(back.value).toBe("pending");
    expect(back.context.lastError).toBe("upstream said 401");
    await clock.timerSet(TTL - 20_000);
    clock.increment(TTL - 20_000);
    expect(actor.getSnapshot().value).toBe("expired");
  });

  test("a submission at or after expiresAt expires the flow without verifying", async () => {
    let verified = false;
    const { actor, input } = flow(async () => void (verified = true));
    actor.send({ type: "SUBMIT", at: input.expiresAt });
    expect(actor.getSnapshot().value).toBe("expired");
    expect(verified).toBe(false);
  });

  test("restored from its snapshot, a flow re-arms its timer for what is left, or expires when overdue", async () => {
    const original = flow(async () => undefined);
    const snapshot = original.actor.getPersistedSnapshot();
    // A restored actor takes its snapshot instead of an input, as the durable runtime restores it.
    const restored = original.machine as AnyStateMachine;
    original.actor.stop();

    const later = new TestClock(original.clock.now() + 45_000);
    const resumed = createActor(restored, { snapshot, clock: later }).start();
    resumed.send({ type: "rehydrated", at: later.now() });
    expect(resumed.getSnapshot().value).toBe("pending");
    expect(later.pendingDelays()).toContain(15_000);

    const overdue = createActor(restored, { snapshot, clock: new TestClock(original.input.expiresAt + 1) }).start();
    overdue.send({ type: "rehydrated", at: original.input.expiresAt + 1 });
    expect(overdue.getSnapshot().value).toBe("expired");
  });
});
