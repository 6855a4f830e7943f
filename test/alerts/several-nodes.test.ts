import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startAlertReceivers } from "../support/alert-receivers";
import { eventually } from "../support/eventually";
import { closeNodes, startNodes, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { createChannel, createRule, evaluateNow, json, loggedRequests, ruleOf } from "./support";

let upstream: MockOpenAI;
let receivers: ReturnType<typeof startAlertReceivers>;
let first: TestGateway;
let second: TestGateway;

beforeAll(async () => {
  upstream = startMockOpenAI();
  receivers = startAlertReceivers();
  [first, second] = await startNodes({ providers: { openai: { keys: [{ id: "k1", value: "sk-upstream" }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } } } });
});
afterAll(async () => {
  await closeNodes([first, second]);
  upstream.stop();
  receivers.stop();
});

/** Each step may wait for the other node's signal check and change check. */
const SEVERAL_CHECKS_MS = 15_000;

describe("two nodes on one database", () => {
  test(
    "a rule asked to evaluate on both nodes is evaluated by the one running it, and notifies once",
    async () => {
      const channel = await createChannel(first, { name: "ops", type: "slack", webhook_url: `${receivers.url}/slack/T/B/secret` });
      const rule = await createRule(first, { name: "traffic", condition: "requests >= 1", channel_ids: [channel.id] });
      const reply = await fetch(`${second.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }) });
      expect(reply.status).toBe(200);
      await loggedRequests(second, "openai", 1);

      await Promise.all([json(first.admin(`/api/alerts/rules/${rule.id}/evaluate`, { method: "POST" }), 202), json(second.admin(`/api/alerts/rules/${rule.id}/evaluate`, { method: "POST" }), 202)]);
      const firing = await eventually(() => ruleOf(second, rule.id), (read) => read.state === "firing", SEVERAL_CHECKS_MS);
      expect(firing.state).toBe("firing");
      // One more evaluation asked of the node not running it, seen done, before counting.
      await evaluateNow(second, rule.id, undefined, SEVERAL_CHECKS_MS);
      await eventually(async () => receivers.to("/slack"), (posts) => posts.length >= 1);
      expect(receivers.to("/slack").map((post) => post.body.text as string).filter((text) => text.startsWith("Firing: traffic"))).toHaveLength(1);
    },
    SEVERAL_CHECKS_MS * 3,
  );
});
