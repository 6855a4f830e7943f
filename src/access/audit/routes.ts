import { Elysia } from "elysia";
import { markDeprecated } from "../deprecation";
import { replies } from "../../http/replies";
import { AuditEventPage, AuditEventParams, AuditEventReply, AuditListQuery, AuditVerdict } from "./schemas";
import type { AuditLog } from "./store";

/** /api/governance/audit-logs (enterprise), plus the deprecated verify path of spec 4.6. */
export const auditRoutes = (audit: AuditLog) =>
  new Elysia({ name: "audit-routes" })
    .group("/api/governance/audit-logs", (group) =>
      group
        .get("/", ({ query }) => audit.list(query), { query: AuditListQuery, ...replies({ 200: AuditEventPage }, { summary: "Search audit events", description: "Signed management events, newest first." }) })
        .get("/:id", ({ params }) => audit.require(params.id), { params: AuditEventParams, ...replies({ 200: AuditEventReply }, { summary: "Get an audit event" }) })
        .get("/:id/verify", ({ params }) => audit.verify(params.id), { params: AuditEventParams, ...replies({ 200: AuditVerdict }, { summary: "Verify an audit event's signature" }) }),
    )
    .get(
      "/api/audit-logs/:id/verify",
      ({ params, set }) => {
        markDeprecated(set, `/api/governance/audit-logs/${encodeURIComponent(params.id)}/verify`);
        return audit.verify(params.id);
      },
      { params: AuditEventParams, ...replies({ 200: AuditVerdict }, { summary: "Verify an audit event's signature (deprecated path)", description: "Deprecated: use GET /api/governance/audit-logs/{id}/verify." }) },
    );
