import { type Static, t } from "elysia";
import { PageLimit, PageOffset } from "../../http/pagination";
import { PageFields } from "../../http/replies";
import { Timestamp } from "../../http/timestamps";

export const AuditListQuery = t.Object({
  action: t.Optional(t.String()),
  outcome: t.Optional(t.Union([t.Literal("success"), t.Literal("failure"), t.Literal("denied")])),
  initiator: t.Optional(t.String({ description: "initiator id: admin username, user id, API key id" })),
  initiator_type: t.Optional(t.String()),
  target: t.Optional(t.String({ description: "target id" })),
  target_type: t.Optional(t.String()),
  start_time: t.Optional(Timestamp()),
  end_time: t.Optional(Timestamp()),
  search: t.Optional(t.String({ description: "case-insensitive text in action, path, initiator, target or summary" })),
  limit: PageLimit(1000),
  offset: PageOffset(),
});
export type AuditListQuery = Static<typeof AuditListQuery>;

export const AuditEventParams = t.Object({ id: t.String() });

const Party = t.Object({ type: t.String(), id: t.String() });

export const AuditEventReply = t.Object(
  {
    id: t.String(),
    timestamp: t.String({ format: "date-time" }),
    initiator: Party,
    action: t.String(),
    target: Party,
    outcome: t.Union([t.Literal("success"), t.Literal("failure"), t.Literal("denied")]),
    method: t.String(),
    path: t.String(),
    ip: t.String(),
    summary: t.Unknown({ description: "What changed, secrets removed; text when it is no longer JSON (tampered)." }),
    signature: t.String({ description: "HMAC of the event: check it with .../verify." }),
  },
  { description: "One signed audit event." },
);
export const AuditEventPage = t.Object({ audit_logs: t.Array(AuditEventReply), ...PageFields });
export const AuditVerdict = t.Object(
  { valid: t.Boolean({ description: "Whether the stored signature is the one computed from the event now." }), computed: t.String(), stored: t.String() },
  { description: "Whether an audit event is as it was recorded." },
);
