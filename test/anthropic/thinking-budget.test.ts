import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type OpenAI from "openai";
import { type AnthropicFixture, openAIClientOf, startAnthropicFixture } from "./fixture";

/**
 * OpenAI-format clients asking an Anthropic model to reason, without an output cap of their own:
 * Anthropic requires `max_tokens`, and the thinking budget counts inside it. The cap is the
 * model's known output limit (the model catalogue's), and thinking takes at most half of it.
 */

let fixture: AnthropicFixture;
let client: OpenAI;

beforeAll(async () => {
  fixture = await startAnthropicFixture();
  client = openAIClientOf(fixture.gw.url);
});
afterAll(() => fixture.close());

const sent = () => fixture.anthropicUpstream.requests.at(-1)!.body as { max_tokens: number; thinking?: { type: string; budget_tokens: number } };

describe("reasoning effort to Anthropic with no output cap", () => {
  test("a Responses call gets the model's output limit as max_tokens, and its thinking budget leaves room for the answer", async () => {
    const response = await client.responses.create({ model: "anthropic/claude-sonnet-4-5", input: "think it over", reasoning: { effort: "high" } });
    expect(response.status).toBe("completed");
    expect(sent()).toMatchObject({ max_tokens: 64000, thinking: { type: "enabled", budget_tokens: 4096 } });
  });

  test("a chat completion the same", async () => {
    await client.chat.completions.create({ model: "anthropic/claude-sonnet-4-5", messages: [{ role: "user", content: "think it over" }], reasoning_effort: "medium" });
    expect(sent()).toMatchObject({ max_tokens: 64000, thinking: { type: "enabled", budget_tokens: 2048 } });
  });

  test("a model the catalogue does not know gets 4096, of which thinking takes half", async () => {
    await client.responses.create({ model: "anthropic/claude-future-9", input: "think it over", reasoning: { effort: "high" } });
    expect(sent()).toMatchObject({ max_tokens: 4096, thinking: { type: "enabled", budget_tokens: 2048 } });
  });

  test("the client's own cap stands, and thinking takes at most half of it", async () => {
    await client.responses.create({ model: "anthropic/claude-sonnet-4-5", input: "think it over", reasoning: { effort: "high" }, max_output_tokens: 3000 });
    expect(sent()).toMatchObject({ max_tokens: 3000, thinking: { type: "enabled", budget_tokens: 1500 } });
  });

  test("a cap too small for Anthropic's smallest budget answers without thinking", async () => {
    await client.responses.create({ model: "anthropic/claude-sonnet-4-5", input: "think it over", reasoning: { effort: "low" }, max_output_tokens: 1500 });
    expect(sent().max_tokens).toBe(1500);
    expect(sent().thinking).toBeUndefined();
  });
});
