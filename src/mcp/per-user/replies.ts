import { Type as t } from "@sinclair/typebox";
import { Timestamp } from "../../http/replies";

/** What the per-user header flow routes answer: which keys a flow waits for and whose it is, never a value or token. */

const flowFields = {
  id: t.String(),
  flow_mode: t.Union([t.Literal("virtual_key"), t.Literal("session")], { description: "Whose values the flow collects: a virtual key's, or a dashboard session's." }),
  status: t.Union([t.Literal("pending"), t.Literal("verifying"), t.Literal("consumed"), t.Literal("expired")]),
  mcp_client: t.Object({ id: t.String(), name: t.String() }),
  virtual_key_id: t.Optional(t.String({ description: "The virtual key whose values these are, in `virtual_key` mode." })),
  required_header_keys: t.Array(t.String(), { description: "The header names each caller fills in." }),
  expires_at: Timestamp,
  created_at: Timestamp,
};
const FlowKind = t.Union([t.Literal("headers"), t.Literal("oauth")], { description: "`headers`: values submitted with PUT; `oauth`: the caller consents at the authorization URL." });

export const PerUserFlowSummary = t.Object({ ...flowFields, kind: FlowKind }, { title: "PerUserFlowSummary" });
export const PerUserFlowList = t.Object({ flows: t.Array(PerUserFlowSummary), count: t.Integer() }, { title: "PerUserFlowList" });
export const PerUserFlow = t.Object(
  {
    ...flowFields,
    kind: FlowKind,
    admin_header_keys: t.Array(t.String(), { description: "Headers the administrator set for everyone, which the caller does not send." }),
    submitted_keys: t.Array(t.String(), { description: "The header names of the values already stored for this caller." }),
    has_active_credential: t.Boolean(),
  },
  { title: "PerUserFlow", description: "A per-user header flow: which header keys to fill in, never any value." },
);
export const PerUserFlowSubmitted = t.Object(
  { status: t.Literal("success"), credential_id: t.String(), updated_at: Timestamp },
  { title: "PerUserFlowSubmitted", description: "The values worked against the MCP server and are stored for the caller; the flow is over." },
);
