/**
 * What the overhead bench sends. Each scenario is one request, sent to all three targets: the
 * mock upstream directly, the bare proxy (which forwards the same path to the mock) and the
 * gateway, which alone also gets the headers of the scenario's setup step (a virtual key).
 * A new scenario is one more entry here, plus whatever it needs in the mock upstream or the
 * gateway's config.
 */

/** A fetch on the gateway's management API, carrying the bench's setup token. */
export type AdminFetch = (path: string, json: unknown) => Promise<unknown>;

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
  /**
   * Run once against the gateway before measuring; returns headers only the gateway is sent
   * (what it creates, such as a virtual key's value, exists only after the call).
   */
  setup?: (admin: AdminFetch) => Promise<Record<string, string>>;
  /** Requests a second at the fixed rate, when not the bench's usual 2,000. */
  rate?: number;
  /** Measured at saturation too (the default); a scenario sized like real traffic may only be measured at its rate. */
  saturation?: boolean;
  /** `--peers` also measures nginx and Portkey's gateway on it. */
  peers?: boolean;
}

const messages = [{ role: "user", content: "say hello in five words" }];

/** Limits far above what the bench sends, so every check runs and none ever refuses. */
const NEVER_REACHED = { token_max_limit: 1_000_000_000, token_reset_duration: "1m", request_max_limit: 1_000_000_000, request_reset_duration: "1m" };

/** A virtual key with a budget and rate limits, and a rule of its own routing its requests. */
async function governedKey(admin: AdminFetch): Promise<Record<string, string>> {
  const created = (await admin("/api/governance/virtual-keys", {
    name: "bench-governed",
    budgets: [{ max_limit: 1_000_000, reset_duration: "1d" }],
    rate_limit: NEVER_REACHED,
  })) as { virtual_key: { id: string; value: string } };
  await admin("/api/governance/routing-rules", {
    name: "bench-governed",
    cel_expression: 'headers["x-bench"] == "governed"',
    targets: [{ provider: "openai", model: "gpt-4o-mini" }],
    scope: "virtual_key",
    scope_id: created.virtual_key.id,
  });
  return { "x-gw-vk": created.virtual_key.value, "x-bench": "governed" };
}

/** A 4 KB prompt of prose with an email and a card number in it, for the pattern checks to find. */
const SENTENCE = "The quarterly report covers revenue, churn and hiring plans for the next two quarters. ";
const FOUR_KB_PROMPT = `${SENTENCE.repeat(23)}Send it to jane.doe@example.com and bill card 4111 1111 1111 1111. ${SENTENCE.repeat(23)}`.slice(0, 4096);
const fourKbMessages = [{ role: "user", content: FOUR_KB_PROMPT }];

/** A virtual key without guardrails: the baseline of "guardrails", with the same prompt and key lookup. */
async function keyWithoutGuardrails(admin: AdminFetch): Promise<Record<string, string>> {
  const created = (await admin("/api/governance/virtual-keys", { name: "bench-no-guardrails" })) as { virtual_key: { value: string } };
  return { "x-gw-vk": created.virtual_key.value };
}

/** A virtual key whose policy runs every pattern check on the input: two redact, the rest log. */
async function keyWithPatternGuardrails(admin: AdminFetch): Promise<Record<string, string>> {
  const created = (await admin("/api/governance/virtual-keys", { name: "bench-guardrails" })) as { virtual_key: { id: string; value: string } };
  const logged = ["phone", "iban", "national_id", "ip_address", "api_key", "private_key", "jwt"].map((type) => ({ type, action: "log", stage: "input" }));
  await admin("/api/guardrails", {
    name: "bench-patterns",
    scope: "virtual_key",
    scope_id: created.virtual_key.id,
    checks: [{ type: "email", action: "redact", stage: "input" }, { type: "payment_card", action: "redact", stage: "input" }, ...logged],
  });
  return { "x-gw-vk": created.virtual_key.value };
}

/**
 * A long coding-agent conversation of about 150 KB, as Claude Code sends late in a session: a
 * system prompt, tool definitions, and turns in which the assistant calls tools and the tool
 * results carry source files back.
 */
function agentConversation(targetBytes: number): Record<string, unknown>[] {
  const source = (file: number) =>
    Array.from({ length: 60 }, (_, line) => `export function step${file}_${line}(input: number[]): number { return input.reduce((sum, value) => sum + value * ${line}, ${file}); }`).join("\n");
  const messages: Record<string, unknown>[] = [
    { role: "system", content: "You are a coding agent. Read files with read_file, change them with edit_file, and explain what you changed. ".repeat(20) },
  ];
  for (let turn = 0; JSON.stringify(messages).length < targetBytes; turn++) {
    const call = { id: `call_${turn}`, type: "function", function: { name: "read_file", arguments: JSON.stringify({ path: `src/module${turn}.ts` }) } };
    messages.push({ role: "user", content: `Now look at src/module${turn}.ts and tell me whether step${turn}_3 handles an empty list.` });
    messages.push({ role: "assistant", content: null, tool_calls: [call] });
    messages.push({ role: "tool", tool_call_id: call.id, content: source(turn) });
    messages.push({ role: "assistant", content: `step${turn}_3 returns ${turn} for an empty list, which is what the caller expects.` });
  }
  messages.push({ role: "user", content: "Summarise every change so far." });
  return messages;
}

const CODING_TOOLS = ["read_file", "edit_file", "run_tests", "search"].map((name) => ({
  type: "function",
  function: { name, description: `The agent's ${name} tool.`, parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } },
}));

export const CLAUDE_CODE_REQUEST_BYTES = 150 * 1024;
export const CLAUDE_CODE_ANSWER_BYTES = 5 * 1024;

export const SCENARIOS: Scenario[] = [
  {
    name: "chat",
    path: "/v1/chat/completions",
    body: { model: "openai/gpt-4o-mini", messages, max_tokens: 16 },
    stream: false,
    expect: "echo: say hello in five words",
    peers: true,
  },
  {
    name: "chat governed",
    path: "/v1/chat/completions",
    body: { model: "openai/gpt-4o-mini", messages, max_tokens: 16 },
    stream: false,
    expect: "echo: say hello in five words",
    setup: governedKey,
  },
  {
    name: "chat stream",
    path: "/v1/chat/completions",
    body: { model: "openai/gpt-4o-mini", messages, max_tokens: 16, stream: true },
    stream: true,
    expect: "data: [DONE]",
    peers: true,
  },
  {
    // The same stream kept resumable: held as a stream actor, its events stored (src/streams). At
    // 2,000 req/s a kept stream's ~7 ms of CPU left the gateway a backlog of tens of seconds that
    // the scenarios after it paid for: measured at a rate it keeps up with, and not at saturation.
    name: "chat stream resumable",
    path: "/v1/chat/completions",
    body: { model: "openai/gpt-4o-mini", messages, max_tokens: 16, stream: true },
    headers: { "x-gw-resumable": "true" },
    stream: true,
    expect: "data: [DONE]",
    rate: 100,
    saturation: false,
  },
  {
    // 150 KB in, 5 KB streamed out, the request's content logged: a coding agent's traffic, as a
    // team of a hundred or so agents sends it (at 200 req/s the gateway fell behind on a shared 2-core machine).
    name: "claude-code sized",
    path: "/v1/chat/completions",
    body: { model: `openai/bench-answer-${CLAUDE_CODE_ANSWER_BYTES}`, messages: agentConversation(CLAUDE_CODE_REQUEST_BYTES), tools: CODING_TOOLS, max_tokens: 2048, stream: true },
    stream: true,
    expect: "data: [DONE]",
    rate: 50,
    saturation: false,
  },
  {
    name: "anthropic stream",
    path: "/anthropic/v1/messages",
    body: { model: "anthropic/claude-sonnet-4-5", messages, max_tokens: 16, stream: true },
    headers: { "anthropic-version": "2023-06-01" },
    stream: true,
    expect: "event: message_stop",
  },
  {
    name: "guardrails none",
    path: "/v1/chat/completions",
    body: { model: "openai/gpt-4o-mini", messages: fourKbMessages, max_tokens: 16 },
    stream: false,
    expect: "echo: The quarterly report",
    setup: keyWithoutGuardrails,
  },
  {
    name: "guardrails",
    path: "/v1/chat/completions",
    body: { model: "openai/gpt-4o-mini", messages: fourKbMessages, max_tokens: 16 },
    stream: false,
    expect: "echo: The quarterly report",
    setup: keyWithPatternGuardrails,
  },
];
