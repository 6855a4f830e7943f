/**
 * What the overhead bench sends. Each scenario is one request, sent unchanged to all three
 * targets: the mock upstream directly, the bare proxy (which forwards the same path to the
 * mock) and the gateway. A later scenario (an Anthropic-format stream, a governed virtual key)
 * is one more entry here, plus whatever it needs in the mock upstream or the gateway's config.
 */
export interface Scenario {
  name: string;
  /** The path on the gateway; the mock upstream answers it too (it routes by path suffix). */
  path: string;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
  /** A streamed reply: the bench also measures the time to its first body byte. */
  stream: boolean;
  /** Text every target's reply must contain, checked once before measuring. */
  expect: string;
}

const messages = [{ role: "user", content: "say hello in five words" }];

export const SCENARIOS: Scenario[] = [
  {
    name: "chat",
    path: "/v1/chat/completions",
    body: { model: "openai/gpt-4o-mini", messages, max_tokens: 16 },
    stream: false,
    expect: "echo: say hello in five words",
  },
  {
    name: "chat stream",
    path: "/v1/chat/completions",
    body: { model: "openai/gpt-4o-mini", messages, max_tokens: 16, stream: true },
    stream: true,
    expect: "data: [DONE]",
  },
  {
    name: "anthropic stream",
    path: "/anthropic/v1/messages",
    body: { model: "anthropic/claude-sonnet-4-5", messages, max_tokens: 16, stream: true },
    headers: { "anthropic-version": "2023-06-01" },
    stream: true,
    expect: "event: message_stop",
  },
];
