import { describe, expect, test } from "bun:test";
import { createActor, fromPromise } from "xstate";
import { type AlertEvaluation, alertRuleMachine } from "../../actors/alert-rule";
import { TestClock } from "../support/test-clock";

const MINUTE = 60_000;

/**
 * The machine alone under a test clock: what `for`, the cooldown and an evaluation that could
 * not tell do to the state, and what is notified. The gateway's tests drive the same machine
 * through HTTP (rules.test.ts).
 */
function ruleUnderTest(timings: { forMs?: number; cooldownMs?: number } = {}) {
  const clock = new TestClock();
  const answers: Array<boolean | null> = [];
  const notified: string[] = [];
  const machine = alertRuleMachine.provide({
    actors: { evaluate: fromPromise(async (): Promise<AlertEvaluation> => ({ holds: answers.length > 0 ? answers.shift()! : false, figures: { requests: 1 }, at: clock.now() })) },
    actions: { notifyFiring: () => void notified.push("firing"), notifyResolved: () => void notified.push("resolved") },
  });
  const actor = createActor(machine, { input: { ruleId: "r", createdAt: clock.now(), intervalMs: MINUTE, forMs: timings.forMs ?? 0, cooldownMs: timings.cooldownMs ?? 0 }, clock });
  actor.start();
  /** The next evaluation, its answer given, once its timer is due. */
  const evaluate = async (holds: boolean | null) => {
    answers.push(holds);
    await clock.timerSet(MINUTE);
    clock.increment(MINUTE);
    await Bun.sleep(0);
    const { condition } = actor.getSnapshot().value as { condition: string | Record<string, string> };
    return typeof condition === "string" ? condition : Object.keys(condition)[0]!;
  };
  return { actor, evaluate, notified };
}

describe("the alert-rule machine", () => {
  test("with `for`, a holding condition is pending until it held that long, then fires once", async () => {
    const { evaluate, notified } = ruleUnderTest({ forMs: 2 * MINUTE });
    expect(await evaluate(true)).toBe("pending");
    expect(await evaluate(true)).toBe("pending");
    expect(await evaluate(true)).toBe("firing");
    expect(await evaluate(true)).toBe("firing");
    expect(notified).toEqual(["firing"]);
  });

  test("a condition that stops holding while pending goes back to ok without notifying", async () => {
    const { evaluate, notified } = ruleUnderTest({ forMs: 5 * MINUTE });
    expect(await evaluate(true)).toBe("pending");
    expect(await evaluate(false)).toBe("ok");
    expect(notified).toEqual([]);
  });

  test("an evaluation that could not tell leaves a firing rule firing", async () => {
    const { evaluate, notified } = ruleUnderTest();
    expect(await evaluate(true)).toBe("firing");
    expect(await evaluate(null)).toBe("firing");
    expect(notified).toEqual(["firing"]);
  });

  test("after resolving, the rule cannot fire again until its cooldown passed", async () => {
    const { evaluate, notified } = ruleUnderTest({ cooldownMs: 2 * MINUTE });
    expect(await evaluate(true)).toBe("firing");
    expect(await evaluate(false)).toBe("resolved");
    expect(await evaluate(true)).toBe("resolved");
    expect(await evaluate(true)).toBe("firing");
    expect(notified).toEqual(["firing", "resolved", "firing"]);
  });

  test("acknowledging is for a firing rule, and resolving forgets it", async () => {
    const { actor, evaluate } = ruleUnderTest();
    actor.send({ type: "acknowledge", by: "user:ann", at: 0 });
    expect(actor.getSnapshot().context.acknowledgedBy).toBeUndefined();
    expect(await evaluate(true)).toBe("firing");
    actor.send({ type: "acknowledge", by: "user:ann", at: 0 });
    expect(actor.getSnapshot().value).toMatchObject({ condition: { firing: "acknowledged" } });
    expect(await evaluate(false)).toBe("resolved");
    expect(actor.getSnapshot().context.acknowledgedBy).toBeUndefined();
  });
});
