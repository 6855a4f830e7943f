import { type Static, t } from "elysia";
import { PageLimit, PageOffset } from "../../http/pagination";
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
