import { Elysia } from "elysia";
import { markDeprecated } from "../deprecation";
import { AuditEventParams, AuditListQuery } from "./schemas";
import type { AuditLog } from "./store";

/** /api/governance/audit-logs (enterprise), plus the deprecated verify path of spec 4.6. */
export const auditRoutes = (audit: AuditLog) =>
  new Elysia({ name: "audit-routes" })
    .group("/api/governance/audit-logs", (group) =>
      group
        .get("/", ({ query }) => audit.list(query), { query: AuditListQuery })
        .get("/:id", ({ params }) => audit.require(params.id), { params: AuditEventParams })
        .get("/:id/verify", ({ params }) => audit.verify(params.id), { params: AuditEventParams }),
    )
    .get(
      "/api/audit-logs/:id/verify",
      ({ params, set }) => {
        markDeprecated(set, `/api/governance/audit-logs/${encodeURIComponent(params.id)}/verify`);
        return audit.verify(params.id);
      },
      { params: AuditEventParams },
    );
