import type { RequestAccess } from "../request-context";
import { redactSecrets } from "./redact";
import type { AuditEventInput, AuditLog } from "./store";

export interface RequestOutcome {
  status: number;
  /** The guard refused the request before any handler ran. */
  denied: boolean;
  body?: unknown;
  responseValue?: unknown;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !(value instanceof Response);

/** Fields that name a resource in this API's bodies (`provider` for /api/providers). */
const IDENTITY_FIELDS = ["id", "name", "provider"];

/** A created thing's id, when the route path could not name it (POST on a collection). */
function createdId(...bodies: unknown[]): string | undefined {
  for (const body of bodies) {
    if (!isObject(body)) continue;
    const id = IDENTITY_FIELDS.map((field) => body[field]).find((value) => typeof value === "string" || typeof value === "number");
    if (id !== undefined) return String(id);
  }
  return undefined;
}

function actionOf(request: Request, access: RequestAccess): string {
  const rule = access.route?.rule;
  if (rule?.action) return rule.action;
  if (rule?.access.kind === "permission") return rule.access.permission;
  return `${request.method} ${rule?.path ?? new URL(request.url).pathname}`;
}

/** Turns a management write into an audit event, with every secret removed from its summary. */
export function auditEventOf(request: Request, access: RequestAccess, outcome: RequestOutcome): AuditEventInput {
  const action = actionOf(request, access);
  const params = Object.values(access.route?.params ?? {});
  const note = access.audit;
  const summary: Record<string, unknown> = { status_code: outcome.status };
  // A route with its own credential may take credentials in its body (per-user MCP headers): keep none of it.
  if (isObject(outcome.body) && access.route?.rule.access.kind !== "own-credential") summary.request = redactSecrets(outcome.body);
  if (note.before !== undefined) summary.before = redactSecrets(note.before);
  if (note.after !== undefined) summary.after = redactSecrets(note.after);
  return {
    initiator: note.initiator ?? { type: access.principal.type, id: access.principal.id },
    action,
    target: { type: action.includes(":") ? action.slice(0, action.indexOf(":")) : "Route", id: note.targetId ?? params.at(-1) ?? createdId(outcome.responseValue, outcome.body) ?? "" },
    outcome: outcome.denied ? "denied" : outcome.status < 400 ? "success" : "failure",
    method: request.method,
    path: new URL(request.url).pathname,
    ip: access.ip,
    summary,
  };
}

/** Appends events without ever failing the request that caused them. */
export class AuditRecorder {
  constructor(private readonly log: AuditLog) {}

  async record(request: Request, access: RequestAccess, outcome: RequestOutcome): Promise<void> {
    if (access.audited) return;
    access.audited = true;
    try {
      await this.log.append(auditEventOf(request, access, outcome));
    } catch (error) {
      console.error("audit log: an event could not be written", error);
    }
  }
}
