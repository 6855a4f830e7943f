import { type Static, Type as t } from "@sinclair/typebox";
import { GuardrailCheck, GuardrailScope } from "../db/schema/types";

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
