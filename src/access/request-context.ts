import { ANONYMOUS, type Principal } from "./principal";
import type { MatchedRoute } from "./route-access";

/** What a handler may add to the audit event of its request. */
export interface AuditNote {
  initiator?: { type: string; id: string };
  targetId?: string;
  before?: unknown;
  after?: unknown;
}

/** Everything the guard learned about a management request, kept for its handler and the audit log. */
export interface RequestAccess {
  principal: Principal;
  route?: MatchedRoute;
  ip: string;
  audit: AuditNote;
  /** Set once the request's audit event is written, so no path writes it twice. */
  audited?: boolean;
}

const byRequest = new WeakMap<Request, RequestAccess>();

export const rememberAccess = (request: Request, access: RequestAccess) => byRequest.set(request, access);

export const accessOf = (request: Request): RequestAccess | undefined => byRequest.get(request);

/** The authenticated caller of a management route (anonymous on public routes). */
export const principalOf = (request: Request): Principal => byRequest.get(request)?.principal ?? ANONYMOUS;

/** Lets a handler record who acted and the before/after state of what it changed. */
export function noteAudit(request: Request, note: AuditNote): void {
  const access = byRequest.get(request);
  if (access) Object.assign(access.audit, note);
}
