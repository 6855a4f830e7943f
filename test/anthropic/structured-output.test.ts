import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { type AnthropicFixture, openAIClientOf, startAnthropicFixture } from "./fixture";

/**
 * A JSON schema for structured output, sent to Anthropic by an OpenAI-format client. Anthropic
 * refuses keywords its grammar cannot compile (numeric bounds, lengths, `$schema`...): they go in
 * the description instead, and where the client asked for strict output the gateway checks the
 * reply against the client's own schema. (The mock model answers a JSON user text as it is.)
 */

let fixture: AnthropicFixture;
let client: OpenAI;

beforeAll(async () => {
  fixture = await startAnthropicFixture();
  client = openAIClientOf(fixture.gw.url);
});
afterAll(() => fixture.close());

const SCHEMA = {
  $schema: "http://json-schema.org/draft-07/schema#",
  type: "object",
  properties: {
    name: { type: "string", maxLength: 20, description: "Who" },
    age: { type: "integer", minimum: 0, maximum: 150 },
    tags: { type: "array", items: { type: "string", format: "slug" }, minItems: 1, maxItems: 3 },
    kind: { oneOf: [{ type: "string", enum: ["a", "b"] }, { type: "null" }] },
  },
  required: ["name", "age", "tags", "kind"],
};

const ask = (content: string, strict = true) =>
  client.chat.completions.create({ model: "anthropic/claude-sonnet-4-5", messages: [{ role: "user", content }], response_format: { type: "json_schema", json_schema: { name: "person", schema: SCHEMA, strict } } });

const sentSchema = () => (fixture.anthropicUpstream.requests.at(-1)!.body.output_config as { format: { schema: Record<string, unknown> } }).format.schema;

describe("structured output to Anthropic", () => {
  test("the schema goes without the keywords Anthropic refuses: they are written into the descriptions", async () => {
    const reply = JSON.stringify({ name: "Ada", age: 36, tags: ["math"], kind: "a" });
    const completion = await ask(reply);
    expect(completion.choices[0]!.message.content).toBe(reply);
    expect(sentSchema()).toEqual({
      type: "object",
      properties: {
        name: { type: "string", description: "Who\n\n{maxLength: 20}" },
        age: { type: "integer", description: "{minimum: 0, maximum: 150}" },
        tags: { type: "array", items: { type: "string", description: '{format: "slug"}' }, minItems: 1, description: "{maxItems: 3}" },
        kind: { anyOf: [{ type: "string", enum: ["a", "b"] }, { type: "null" }] },
      },
      required: ["name", "age", "tags", "kind"],
      additionalProperties: false,
    });
  });

  test("strict: a reply breaking a keyword Anthropic was not given is a 502 saying which", async () => {
    const error = await ask(JSON.stringify({ name: "Ada", age: 200, tags: ["math"], kind: null })).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((error as InstanceType<typeof OpenAI.APIError>).message).toContain("(/age must be <= 150)");
  });

  test("strict on the Responses API too", async () => {
    const error = await client.responses
      .create({ model: "anthropic/claude-sonnet-4-5", input: JSON.stringify({ name: "Ada", age: -1, tags: ["math"], kind: "a" }), text: { format: { type: "json_schema", name: "person", schema: SCHEMA, strict: true } } })
      .catch((caught: unknown) => caught);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((error as InstanceType<typeof OpenAI.APIError>).message).toContain("(/age must be >= 0)");
  });

  test("not strict: the reply passes as the model wrote it", async () => {
    const reply = JSON.stringify({ name: "Ada", age: 200, tags: ["math"], kind: null });
    const completion = await ask(reply, false);
    expect(completion.choices[0]!.message.content).toBe(reply);
  });
});
