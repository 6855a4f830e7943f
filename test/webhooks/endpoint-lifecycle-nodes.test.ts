import { expect, test } from "bun:test";
import { closeNodes, startNodes } from "../support/gateway";
import { createEndpoint } from "../support/webhook-endpoints";
import { startWebhookReceiver } from "../support/webhook-receiver";

test("an endpoint's state is the same on every node within about a second, whichever node it was changed on", async () => {
  const receiver = startWebhookReceiver();
  const [first, second] = await startNodes();
  try {
    const endpoint = await createEndpoint(first, receiver, "/shared");
    const stateOn = async (node: typeof first) => ((await (await node.admin(`/api/webhooks/${endpoint.id}`)).json()) as { state: string }).state;
    // The other node learns of the endpoint within a second.
    for (const deadline = performance.now() + 3_000; (await second.admin(`/api/webhooks/${endpoint.id}`)).status !== 200 && performance.now() < deadline; ) await Bun.sleep(20);
    // The actor runs on the node that made the endpoint; the other node's change travels to it through the database.
    const changed = await second.admin(`/api/webhooks/${endpoint.id}`, { method: "PUT", json: { disabled: true } });
    expect(changed.status).toBe(200);
    const startedAt = performance.now();
    for (const node of [first, second]) {
      while ((await stateOn(node)) !== "disabled" && performance.now() - startedAt < 5_000) await Bun.sleep(20);
    }
    expect([await stateOn(first), await stateOn(second)]).toEqual(["disabled", "disabled"]);
    expect(performance.now() - startedAt).toBeLessThan(2_000);
    const actors = (await (await second.admin(`/api/actors/webhook-endpoint/${endpoint.id}`)).json()) as { transitions: Array<{ to_path: string; event: string }> };
    expect(actors.transitions.map((transition) => [transition.event, transition.to_path])).toEqual([
      ["xstate.init", "active"],
      ["disable", "disabled"],
    ]);
  } finally {
    await closeNodes([first, second]);
    receiver.stop();
  }
});
