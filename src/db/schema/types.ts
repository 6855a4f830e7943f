/**
 * The shapes of the JSON columns, declared here with the tables so that the schema depends on no
 * area: the areas build their inputs from these and read their rows as these.
 */
import { Type, type Static, type TLiteral, type TUnion } from "@sinclair/typebox";
import { t } from "elysia";

// Governance: the limits, routes and prices kept on keys, teams, customers and rules.

/** How every virtual key's value starts: what tells one from other credentials. */
export const VIRTUAL_KEY_PREFIX = "sk-gw-";

/** `30s`, `5m`, `1h`, `1d`, `1w`, `1M` (month), `1Y` (year). */
export const Duration = t.String({ pattern: "^[1-9][0-9]*(s|m|h|d|w|M|Y)$", description: "e.g. 30s, 5m, 1h, 1d, 1w, 1M, 1Y" });

export const BudgetSpec = t.Object({
  /** USD. */
  max_limit: t.Number({ minimum: 0 }),
  reset_duration: Duration,
  /** Reset at the start of each UTC day, week (Monday), month or year instead of rolling; d, w, M and Y only. */
  calendar_aligned: t.Optional(t.Boolean()),
});
export type BudgetSpec = Static<typeof BudgetSpec>;

export const RateLimitSpec = t.Object({
  token_max_limit: t.Optional(Type.Integer({ minimum: 0 })),
  token_reset_duration: t.Optional(Duration),
  request_max_limit: t.Optional(Type.Integer({ minimum: 0 })),
  request_reset_duration: t.Optional(Duration),
});
export type RateLimitSpec = Static<typeof RateLimitSpec>;

export const SessionBudget = t.Object(
  {
    /** USD a session may spend. */
    max_cost: t.Optional(t.Number({ minimum: 0 })),
    /** Tokens (input and output) a session may use. */
    max_tokens: t.Optional(Type.Integer({ minimum: 0 })),
  },
  { description: "What one session (an agent run, named by its conversation id) of the key may spend; a session past it is refused with 402." },
);
export type SessionBudget = Static<typeof SessionBudget>;

export const ComplexityReference = t.Object({
  text: t.String({ minLength: 1, maxLength: 20_000, description: "A prompt as a user would write it." }),
  tier: t.String({ minLength: 1, description: "The tier it belongs to: one of `tiers`." }),
});
export type ComplexityReference = Static<typeof ComplexityReference>;

export const ProviderConfig = t.Object({
  provider: t.String({ minLength: 1 }),
  /** Share of requests whose model names no provider; 0 is picked only when no other has weight. */
  weight: t.Optional(t.Number({ minimum: 0 })),
  /** Models this key may use on the provider; empty or `*` allows all. */
  allowed_models: t.Optional(t.Array(t.String({ minLength: 1 }))),
  /** Provider keys this key may use; empty allows all of the provider's keys. */
  key_ids: t.Optional(t.Array(t.String({ minLength: 1 }))),
  budgets: t.Optional(t.Array(BudgetSpec)),
  rate_limit: t.Optional(RateLimitSpec),
});
export type ProviderConfig = Static<typeof ProviderConfig>;

export const McpConfig = t.Object({
  mcp_client_name: t.String({ minLength: 1 }),
  /** Tools this key may execute on the client; empty allows none, `*` all. */
  tools_to_execute: t.Optional(t.Array(t.String())),
});
export type McpConfig = Static<typeof McpConfig>;

/** Tool search in chat requests: the model gets `search_tools` and the pinned tools instead of every MCP tool. */
export const McpToolSearch = t.Object(
  {
    enabled: t.Optional(t.Boolean({ description: "Offer search_tools and the pinned tools instead of every MCP tool (default false)." })),
    pinned: t.Optional(t.Array(t.String({ minLength: 1 }), { maxItems: 100, description: "Tools always offered, as `<client>-<tool>`." })),
    max_results: t.Optional(t.Integer({ minimum: 1, maximum: 50, description: "Tools one search answers at most (default 5)." })),
  },
  { additionalProperties: false },
);
export type McpToolSearch = Static<typeof McpToolSearch>;

export const RoutingTarget = t.Object({
  /** Empty keeps the request's provider. */
  provider: t.Optional(t.String()),
  /** Empty keeps the request's model. */
  model: t.Optional(t.String()),
  /** Pins one key of the provider. */
  key_id: t.Optional(t.String()),
  weight: t.Optional(t.Number({ minimum: 0 })),
});
export type RoutingTarget = Static<typeof RoutingTarget>;

const PerToken = t.Optional(t.Number({ minimum: 0 }));
/** USD per token (or per unit, for what is priced so); the names of the shipped catalogue (src/governance/pricing/catalog.json). */
export const PricePatch = t.Object({
  input_cost_per_token: PerToken,
  output_cost_per_token: PerToken,
  cache_read_input_token_cost: PerToken,
  cache_creation_input_token_cost: PerToken,
  output_cost_per_reasoning_token: PerToken,
  /** Audio in and out (the Realtime API, audio chat models), where it costs more than text. */
  input_cost_per_audio_token: PerToken,
  output_cost_per_audio_token: PerToken,
  cache_read_input_audio_token_cost: PerToken,
  /** What is priced by the unit: an image made (DALL·E), a character read out (tts-1), a second of audio heard (whisper-1) or of video made (Sora). */
  output_cost_per_image: PerToken,
  input_cost_per_character: PerToken,
  input_cost_per_second: PerToken,
  output_cost_per_second: PerToken,
});
export type PricePatch = Static<typeof PricePatch>;

/** The read that says how a video stands: Sora's retrieve by its id, or a poll of the Veo operation making it. */
export type VideoPoll = { operation: "video_retrieve"; params: { id: string } } | { operation: "gemini_operation_get"; params: { model: string; id: string } };

// Guardrails: the checks of a policy and the verdicts the request log keeps.

/**
 * One of a list's values, typed as a tuple of literals: Elysia's types of a body, query or reply
 * read a union of an array (`Type.Union(values.map(...))`) as nothing at all.
 */
export const literals = <const Values extends readonly string[]>(values: Values, options?: { description?: string }) =>
  Type.Union(
    values.map((value) => Type.Literal(value)),
    options,
  ) as unknown as TUnion<{ -readonly [K in keyof Values]: TLiteral<Values[K]> }>;

/** The detectors of personal data and secrets (src/guardrails/detectors.ts has one for each name). */
export const DETECTOR_NAMES = ["email", "phone", "payment_card", "iban", "national_id", "ip_address", "api_key", "private_key", "jwt"] as const;
export type DetectorName = (typeof DETECTOR_NAMES)[number];

export const CHECK_TYPES = [...DETECTOR_NAMES, "regex", "word_list", "json_schema", "length", "language", "model", "http"] as const;
export type CheckType = (typeof CHECK_TYPES)[number];

export const GuardrailScope = literals(["global", "virtual_key", "team", "customer", "routing_rule"] as const);
export type GuardrailScope = Static<typeof GuardrailScope>;

export const CheckStage = literals(["input", "output", "both"] as const);
export const CheckAction = literals(["block", "redact", "log"] as const);
export type CheckAction = Static<typeof CheckAction>;

/** One check of a policy; which of the optional fields it needs depends on its `type` (checked in src/guardrails/checks.ts). */
export const GuardrailCheck = Type.Object(
  {
    type: literals(CHECK_TYPES),
    /** Reported in verdicts and errors; the type when not given. */
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    stage: Type.Optional(CheckStage),
    action: Type.Optional(CheckAction),
    /** regex: an RE2 pattern. */
    pattern: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    /** regex and word_list: the placeholder's type, `[LABEL_1]`. */
    label: Type.Optional(Type.String({ pattern: "^[A-Z][A-Z0-9_]{0,31}$" })),
    case_sensitive: Type.Optional(Type.Boolean()),
    words: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 5000 })),
    /** json_schema: the schema the reply must meet; without it, the request's `response_format` schema. */
    schema: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    max_characters: Type.Optional(Type.Integer({ minimum: 1 })),
    max_tokens: Type.Optional(Type.Integer({ minimum: 1 })),
    /** language: ISO 639-1 codes. */
    allowed_languages: Type.Optional(Type.Array(Type.String({ pattern: "^[a-z]{2}$" }), { minItems: 1 })),
    denied_languages: Type.Optional(Type.Array(Type.String({ pattern: "^[a-z]{2}$" }), { minItems: 1 })),
    /** model: a model the gateway serves (`provider/model`), asked through the gateway itself. */
    model: Type.Optional(Type.String({ minLength: 1 })),
    /** model: `moderation` calls /v1/moderations; `chat` sends `prompt` and the text to a chat model. */
    endpoint: Type.Optional(literals(["chat", "moderation"] as const)),
    prompt: Type.Optional(Type.String({ minLength: 1, maxLength: 8000 })),
    /** http: where the text is POSTed; the answer `{"verdict": "block" | "allow"}` decides. */
    url: Type.Optional(Type.String({ pattern: "^https?://" })),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    allow_private_network: Type.Optional(Type.Boolean()),
    timeout_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 60_000 })),
    /** model and http: a checker that fails or times out blocks (true) or lets the text pass (false, the default). */
    fail_closed: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type GuardrailCheck = Static<typeof GuardrailCheck>;

/** One verdict as the request log records it: never the matched text. */
export const GuardrailVerdict = Type.Object({
  guardrail: Type.String(),
  check: Type.String(),
  stage: literals(["input", "output"] as const),
  action: CheckAction,
  matches: Type.Integer(),
});
export type GuardrailVerdict = Static<typeof GuardrailVerdict>;

// Logs: the trail of a request's attempts.

/** One step of a request's key/target trail, as the logs keep it: no secrets, only the key's id. */
export interface Attempt {
  provider: string;
  model: string;
  key?: string;
  status?: number;
  error_type?: string;
  is_fallback: boolean;
}
