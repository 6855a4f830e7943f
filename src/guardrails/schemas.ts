import { type Static, Type as t } from "@sinclair/typebox";
import { GuardrailCheck, GuardrailScope } from "../db/schema/types";
import { Message, PageFields, Timestamp } from "../http/replies";

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

/** A policy as every reply shows it (policy-store.ts `guardrailView`). */
export const GuardrailReply = t.Object({
  id: t.String(),
  name: t.String(),
  description: t.String(),
  enabled: t.Boolean(),
  scope: GuardrailScope,
  scope_id: t.Union([t.String(), t.Null()], { description: "null for a global policy." }),
  restore_redacted: t.Boolean(),
  checks: t.Array(GuardrailCheck),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export const GuardrailPage = t.Object({ guardrails: t.Array(GuardrailReply), ...PageFields });
export const GuardrailOne = t.Object({ guardrail: GuardrailReply });
export const GuardrailWritten = t.Object({ message: Message, guardrail: GuardrailReply });
