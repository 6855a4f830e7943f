import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { answerOf, chat, startWarpTestbed, usableConfig, type WarpTestbed, writeConfig } from "./support";

let bed: WarpTestbed;

beforeAll(async () => {
  bed = await startWarpTestbed({ enforce_auth_on_inference: true });
  await writeConfig(bed.gw, usableConfig());
});
afterAll(() => bed.close());

describe("with enforce_auth_on_inference on", () => {
  test("the agent's own model calls need no virtual key, while a client's call without one is refused", async () => {
    bed.model.script = [{ text: "All quiet." }];
    const { response, events } = await chat(bed.gw, { message: "anything unusual today?" });
    expect(response.status).toBe(200);
    expect(answerOf(events)).toBe("All quiet.");

    const outside = await fetch(`${bed.gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(outside.status).toBe(401);
    expect(((await outside.json()) as { extra_fields: { error_type: string } }).extra_fields.error_type).toBe("caller_virtual_key_required");
  });
});
