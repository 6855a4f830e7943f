import { type Static, Type as t } from "@sinclair/typebox";
import { DETECTOR_NAMES } from "./detectors";

const literals = <T extends string>(values: readonly T[]) => t.Union(values.map((value) => t.Literal(value)));

export const CHECK_TYPES = [...DETECTOR_NAMES, "regex", "word_list", "json_schema", "length", "language", "model", "http"] as const;
export type CheckType = (typeof CHECK_TYPES)[number];

export const GuardrailScope = literals(["global", "virtual_key", "team", "customer", "routing_rule"] as const);
export type GuardrailScope = Static<typeof GuardrailScope>;

export const CheckStage = literals(["input", "output", "both"] as const);
export const CheckAction = literals(["block", "redact", "log"] as const);
export type CheckAction = Static<typeof CheckAction>;

/** One check of a policy; which of the optional fields it needs depends on its `type` (checked in checks.ts). */
export const GuardrailCheck = t.Object(
  {
    type: literals(CHECK_TYPES),
    /** Reported in verdicts and errors; the type when not given. */
    name: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
    stage: t.Optional(CheckStage),
    action: t.Optional(CheckAction),
    /** regex: an RE2 pattern. */
    pattern: t.Optional(t.String({ minLength: 1, maxLength: 2048 })),
    /** regex and word_list: the placeholder's type, `[LABEL_1]`. */
    label: t.Optional(t.String({ pattern: "^[A-Z][A-Z0-9_]{0,31}$" })),
    case_sensitive: t.Optional(t.Boolean()),
    words: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 5000 })),
    /** json_schema: the schema the reply must meet; without it, the request's `response_format` schema. */
    schema: t.Optional(t.Record(t.String(), t.Unknown())),
    max_characters: t.Optional(t.Integer({ minimum: 1 })),
    max_tokens: t.Optional(t.Integer({ minimum: 1 })),
    /** language: ISO 639-1 codes. */
    allowed_languages: t.Optional(t.Array(t.String({ pattern: "^[a-z]{2}$" }), { minItems: 1 })),
    denied_languages: t.Optional(t.Array(t.String({ pattern: "^[a-z]{2}$" }), { minItems: 1 })),
    /** model: a model the gateway serves (`provider/model`), asked through the gateway itself. */
    model: t.Optional(t.String({ minLength: 1 })),
    /** model: `moderation` calls /v1/moderations; `chat` sends `prompt` and the text to a chat model. */
    endpoint: t.Optional(literals(["chat", "moderation"] as const)),
    prompt: t.Optional(t.String({ minLength: 1, maxLength: 8000 })),
    /** http: where the text is POSTed; the answer `{"verdict": "block" | "allow"}` decides. */
    url: t.Optional(t.String({ pattern: "^https?://" })),
    headers: t.Optional(t.Record(t.String(), t.String())),
    allow_private_network: t.Optional(t.Boolean()),
    timeout_ms: t.Optional(t.Integer({ minimum: 1, maximum: 60_000 })),
    /** model and http: a checker that fails or times out blocks (true) or lets the text pass (false, the default). */
    fail_closed: t.Optional(t.Boolean()),
  },
  { additionalProperties: false },
);
export type GuardrailCheck = Static<typeof GuardrailCheck>;

const policyFields = {
  name: t.String({ minLength: 1, maxLength: 128 }),
  description: t.Optional(t.String({ maxLength: 1024 })),
  enabled: t.Optional(t.Boolean()),
  scope: t.Optional(GuardrailScope),
  /** The virtual key, team, customer or routing rule id; none for `global`. */
  scope_id: t.Optional(t.String({ minLength: 1 })),
  /** Redacted input values are put back in the reply (reversible pseudonymisation). */
  restore_redacted: t.Optional(t.Boolean()),
  checks: t.Array(GuardrailCheck, { minItems: 1, maxItems: 100 }),
};

export const GuardrailPolicyInput = t.Object(policyFields, { additionalProperties: false });
export type GuardrailPolicyInput = Static<typeof GuardrailPolicyInput>;

export const GuardrailPolicyUpdate = t.Partial(t.Object(policyFields), { additionalProperties: false });
export type GuardrailPolicyUpdate = Static<typeof GuardrailPolicyUpdate>;

export const ListQuery = t.Object({
  scope: t.Optional(GuardrailScope),
  scope_id: t.Optional(t.String()),
});

/** One verdict as the request log records it: never the matched text. */
export const GuardrailVerdict = t.Object({
  guardrail: t.String(),
  check: t.String(),
  stage: literals(["input", "output"] as const),
  action: CheckAction,
  matches: t.Integer(),
});
export type GuardrailVerdict = Static<typeof GuardrailVerdict>;
