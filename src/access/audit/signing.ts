import { createHmac } from "node:crypto";
import type { AuditEventRow } from "../../db/schema";

export type UnsignedAuditEvent = Omit<AuditEventRow, "signature">;

/** Every column but the signature, in a fixed order; the summary exactly as stored. */
const canonicalText = (event: UnsignedAuditEvent) =>
  JSON.stringify([
    event.id,
    event.occurredAt.getTime(),
    event.initiatorType,
    event.initiatorId,
    event.action,
    event.targetType,
    event.targetId,
    event.outcome,
    event.method,
    event.path,
    event.ip,
    event.summary,
  ]);

/** HMAC-SHA256 of the event under the server's audit secret, hex encoded. */
export const signAuditEvent = (secret: string, event: UnsignedAuditEvent) => createHmac("sha256", secret).update(canonicalText(event)).digest("hex");
