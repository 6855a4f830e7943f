import { type Edition, forbidden } from "./access-errors";
import { holds, type Principal } from "./principal";
import type { RouteRule } from "./route-access";

/** Spec 5.4 and 5.5: the local admin passes; everyone else needs what the route table asks for. */
export function authorize(principal: Principal, rule: RouteRule | undefined, edition: Edition): void {
  if (principal.localAdmin) return;
  if (!rule) throw forbidden("this management route declares no permission, so only the local admin may call it");
  const access = rule.access;
  switch (access.kind) {
    case "public":
    case "own-credential":
    case "authenticated":
      return;
    case "local-admin":
      throw forbidden("only the local admin may call this route", "policy_local_admin_required");
    case "permission":
      if (access.localAdminOnOss && edition === "oss") throw forbidden("only the local admin may call this route", "policy_local_admin_required");
      if (!holds(principal, access.permission)) throw forbidden(`missing permission ${access.permission}`);
  }
}
